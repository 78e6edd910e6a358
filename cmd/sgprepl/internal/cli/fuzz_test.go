package cli

import "testing"

// FuzzReadColumns: the column-mode CSV reader of fit never panics and
// returns an error of bounded length or inputs and targets of one length.
func FuzzReadColumns(f *testing.F) {
	for _, s := range []string{
		"smiles,y\nCCO,1\nc1ccccc1,2\n",
		"a,b,y\n1,2,3\n4,5,6\n",
		"s,y,split\nCC,1,train\nCO,x,test\n",
		"\"q,uoted\",y\n\"a\nb\",1\n",
		"x\n",
		"",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := writeFile(t, dir, "in.csv", string(data))
		for _, spec := range []string{"rbf", "spectrum:2", "wl:1"} {
			d, err := readColumnData(path, nil, "", spec, "")
			if err != nil {
				if len(err.Error()) > 2000 {
					t.Fatalf("%s: error message of %d bytes", spec, len(err.Error()))
				}
				continue
			}
			if d.x.Len() != len(d.y) || len(d.y) == 0 {
				t.Fatalf("%s: %d inputs, %d targets", spec, d.x.Len(), len(d.y))
			}
		}
	})
}
