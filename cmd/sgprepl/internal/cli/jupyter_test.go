package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstallKernel(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"install-kernel", "--prefix", dir, "--name", "sgptest"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "share", "jupyter", "kernels", "sgptest", "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Argv          []string `json:"argv"`
		Language      string   `json:"language"`
		InterruptMode string   `json:"interrupt_mode"`
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	if len(spec.Argv) != 3 || spec.Argv[0] != exe || spec.Argv[1] != "kernel" || spec.Argv[2] != "{connection_file}" ||
		spec.Language != "go" || spec.InterruptMode != "message" {
		t.Errorf("kernel.json: %s", b)
	}
	if code := Main(context.Background(), []string{"install-kernel", "--user", "--prefix", dir}, nil, &stdout, &stderr); code != exitUsage {
		t.Errorf("--user with --prefix: exit %d", code)
	}
	t.Setenv("JUPYTER_DATA_DIR", filepath.Join(dir, "user"))
	if code := Main(context.Background(), []string{"install-kernel", "--user"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("--user: exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "user", "kernels", "sgp", "kernel.json")); err != nil {
		t.Error(err)
	}
}

func TestKernelCommandErrors(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"kernel"}, nil, &stdout, &stderr); code != exitUsage {
		t.Errorf("no connection file: exit %d", code)
	}
	if code := Main(context.Background(), []string{"kernel", filepath.Join(t.TempDir(), "missing.json")}, nil, &stdout, &stderr); code != exitFailure {
		t.Errorf("missing connection file: exit %d", code)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"transport":"tcp","ip":"127.0.0.1","key":"k","signature_scheme":"hmac-md5"}`), 0o600)
	stderr.Reset()
	if code := Main(context.Background(), []string{"kernel", bad}, nil, &stdout, &stderr); code != exitFailure || !strings.Contains(stderr.String(), "hmac-md5") {
		t.Errorf("bad scheme: exit %d, %s", code, stderr.String())
	}
}
