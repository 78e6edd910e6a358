package sgp

import (
	"fmt"
	"os"
	"testing"
	"time"
)

func TestKinDbg(t *testing.T) {
	if os.Getenv("KIN") == "" {
		t.Skip()
	}
	train, test, err := LoadKIN40K("../../shared/data")
	if err != nil {
		t.Skip(err)
	}
	md := NewModel(train.X, train.Y, NewRBFFromData(train.X, train.Y)).WithM(512).WithMaxEpochs(1).WithProgress(os.Stdout)
	start := time.Now()
	md.Err()
	fmt.Println("build", time.Since(start))
	res, err := md.Fit()
	smse, snlp, _ := md.Evaluate(test)
	fmt.Println(res.Objective, res.Epochs, res.Elapsed, err, smse, snlp, md.Hyperparameters())
}
