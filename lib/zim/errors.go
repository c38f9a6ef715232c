package zim

import (
	"errors"
	"fmt"
)

// ErrNotFound is returned when no entry has the requested path, title or
// metadata name (libzim's EntryNotFound).
var ErrNotFound = errors.New("entry not found")

// ErrOutOfRange is returned for an entry index past the end of the path
// pointer list. Its text is libzim's.
var ErrOutOfRange = errors.New("entry index out of range")

// ErrIsRedirect is returned when the data of a redirect entry is asked for.
var ErrIsRedirect = errors.New("entry is a redirect")

// FormatError reports a structural problem of an archive. Msg uses libzim's
// wording where libzim raises the same error (zimdump prints it after
// "Exception: "); Error() adds the file name and byte offset.
type FormatError struct {
	File   string // name of the archive as given to Open, or WithName
	Offset int64  // byte offset of the faulty structure, -1 when none applies
	Msg    string
}

// Error returns "file: offset N: message".
func (e *FormatError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s: offset %d: %s", e.File, e.Offset, e.Msg)
}

// errf returns a FormatError at off. An argument that is (or wraps) a
// FormatError contributes its Msg, and its offset when it has one (it
// locates the fault more precisely), so that the file name and offset
// appear once.
func (a *Archive) errf(off int64, format string, args ...any) error {
	for i, v := range args {
		var fe *FormatError
		if err, ok := v.(error); ok && errors.As(err, &fe) {
			args[i] = fe.Msg
			if fe.Offset >= 0 {
				off = fe.Offset
			}
		}
	}
	return &FormatError{File: a.name, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// passf is errf for an error err met at off, which ends the message: a
// FormatError is returned as it is, since it already names the structure
// at fault (the cluster, the block).
func (a *Archive) passf(err error, off int64, format string, args ...any) error {
	var fe *FormatError
	if errors.As(err, &fe) {
		return err
	}
	return a.errf(off, format+": %v", append(args, err)...)
}

// Message returns the text zimdump prints after "Exception: " for err:
// FormatError.Msg, the libzim wording for the sentinel errors, err.Error()
// otherwise.
func Message(err error) string {
	var fe *FormatError
	if errors.As(err, &fe) {
		return fe.Msg
	}
	return err.Error()
}
