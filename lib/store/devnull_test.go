package store

import (
	"context"
	"os"
	"testing"
)

// TestCreateDevNull: a local output that is a device is written in place;
// Commit and Abort leave /dev/null a device (a rename made it a regular
// file, for every process on the machine).
func TestCreateDevNull(t *testing.T) {
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Fatalf("%s is not a device before the test: %v %v", os.DevNull, fi, err)
	}
	for _, commit := range []bool{true, false} {
		w, err := Create(context.Background(), os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte("discarded")); err != nil {
			t.Fatal(err)
		}
		if commit {
			err = w.Commit()
		} else {
			err = w.Abort()
		}
		if err != nil {
			t.Fatalf("commit=%v: %v", commit, err)
		}
		if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeDevice == 0 {
			t.Fatalf("%s after commit=%v: %v %v (no longer a device)", os.DevNull, commit, fi, err)
		}
	}
}
