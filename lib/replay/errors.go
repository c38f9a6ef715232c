package replay

import (
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/arcport/arcport/lib/cdx"
)

// cdxError is pywb's CDXException: a 400 with its message.
type cdxError struct{ msg string }

func (e *cdxError) Error() string { return e.msg }

// internalError is an exception pywb does not expect: a 500 whose body
// says "Internal Error: " and the Python message.
type internalError struct{ msg string }

func (e *internalError) Error() string { return e.msg }

// badRequest is pywb's BadRequestException: a 400 with its message.
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

// jsonError answers as pywb's warcserver does: {"message": ...}.
func jsonError(w http.ResponseWriter, code int, msg string) {
	b := cdx.AppendPyJSON([]byte(`{"message": `), msg)
	b = append(b, '}')
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	w.WriteHeader(code)
	w.Write(b)
}

// errorStatus maps an error to pywb's status and message.
func errorStatus(err error) (int, string) {
	var br *badRequest
	var ce *cdxError
	var ie *internalError
	switch {
	case errors.As(err, &br):
		return http.StatusBadRequest, br.msg
	case errors.As(err, &ce):
		return http.StatusBadRequest, ce.msg
	case errors.As(err, &ie):
		return http.StatusInternalServerError, "Internal Error: " + ie.msg
	}
	return http.StatusInternalServerError, "Internal Error: " + err.Error()
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// errNotFound is pywb's NotFoundException from a source: the aggregator
// counts the source as empty.
var errNotFound = errors.New("index not found")
