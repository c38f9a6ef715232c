package access

import "os"

// unwrapPath drops the path an *os.PathError repeats (the message names
// the file once).
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
