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

func (a *Archive) errf(off int64, format string, args ...any) error {
	return &FormatError{File: a.name, Offset: off, Msg: fmt.Sprintf(format, args...)}
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
