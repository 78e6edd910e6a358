// Drives headless Debian Chromium with playwright-core through a notebook
// served by Jupyter Notebook 6 (see browser-check.sh): opens it, checks that
// the sgp kernel is connected, runs all cells from the Cell menu, waits for
// them to finish, and checks that a plot image rendered and that no cell has
// an error output. Screenshots go to OUTDIR.
//
//   node browser-check.js BASE_URL TOKEN NOTEBOOK OUTDIR
//
// Exit status: 0 passed, 1 the check failed, 3 the browser could not start.
"use strict";

const path = require("path");
const { chromium } = require(process.env.PLAYWRIGHT_CORE || "playwright-core");

const [base, token, name, outDir] = process.argv.slice(2);
const runTimeout = Number(process.env.BROWSER_CHECK_TIMEOUT_MS || 180e3);

function log(msg) {
  console.log("browser check: " + msg);
}

async function main() {
  let browser;
  try {
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  } catch (e) {
    console.error("cannot launch chromium: " + e.message);
    return 3;
  }
  const problems = [];
  let page;
  try {
    page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    const pageErrors = [];
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error") log("console error: " + m.text());
    });

    const url = `${base}/notebooks/${encodeURIComponent(name)}?token=${token}`;
    log("opening " + url.replace(token, "…"));
    await page.goto(url, { waitUntil: "load" });

    // The notebook application and a connected kernel of the right name.
    await page.waitForFunction(
      () => window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected(),
      null,
      { timeout: 60e3 },
    );
    const kernelName = await page.evaluate(() => Jupyter.notebook.kernel.name);
    log("kernel " + kernelName + " connected");
    if (kernelName !== "sgp") problems.push(`the notebook runs kernel ${kernelName}, not sgp`);

    // Cell > Run All, as a user would.
    await page.click("#celllink");
    await page.click("#run_all_cells a");
    const codeCells = await page.locator(".code_cell").count();
    log(`running ${codeCells} code cells`);
    await page.waitForFunction(
      () => {
        const prompts = [...document.querySelectorAll(".code_cell .input_prompt")].map((p) => p.textContent);
        const icon = document.querySelector("#kernel_indicator_icon");
        const idle = icon !== null && /idle/.test(icon.className);
        // Run All marks every queued cell [*] at once; cells aborted after
        // an error go back to [ ].
        return idle && prompts.some((t) => /\[\d+\]/.test(t)) && !prompts.some((t) => t.includes("*"));
      },
      null,
      { timeout: runTimeout, polling: 250 },
    );
    const unrun = await page.$$eval(".code_cell .input_prompt", (ps) => ps.filter((p) => !/\[\d+\]/.test(p.textContent)).length);
    if (unrun > 0) problems.push(`${unrun} code cells did not run`);
    log("all cells ran");

    const errors = await page.$$eval(".output_error", (els) => els.map((e) => e.innerText.slice(0, 400)));
    for (const e of errors) problems.push("error output in a cell: " + e);
    const images = await page.$$eval(".output_png img", (imgs) =>
      imgs.map((i) => ({ w: i.naturalWidth, h: i.naturalHeight, done: i.complete })),
    );
    log(`images: ${JSON.stringify(images)}`);
    if (images.length === 0) problems.push("no plot image (.output_png img) after running the notebook");
    for (const im of images) {
      if (!im.done || im.w < 100 || im.h < 100) problems.push("an image did not render: " + JSON.stringify(im));
    }
    const dead = await page.evaluate(() => !Jupyter.notebook.kernel.is_connected());
    if (dead) problems.push("the kernel is no longer connected");
    for (const e of pageErrors) problems.push("uncaught error in the page: " + e);

    await page.screenshot({ path: path.join(outDir, "notebook.png") });
    const img = page.locator(".output_png img").first();
    if ((await img.count()) > 0) {
      await img.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(outDir, "plot.png") });
    }
  } catch (e) {
    problems.push(e.message.split("\n")[0]);
    if (page) {
      const state = await page
        .evaluate(() => ({
          prompts: [...document.querySelectorAll(".code_cell .input_prompt")].map((p) => p.textContent.trim()),
          kernel: (document.querySelector("#kernel_indicator_icon") || {}).className,
          notification: (document.querySelector("#notification_kernel") || {}).textContent,
        }))
        .catch(() => null);
      if (state) problems.push("page state: " + JSON.stringify(state));
      await page.screenshot({ path: path.join(outDir, "failure.png") }).catch(() => {});
    }
  } finally {
    await browser.close();
  }
  for (const p of problems) console.error("browser check: " + p);
  return problems.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
