package record

import "strings"

// Field is one header line: a name and its value, as written.
type Field struct {
	Name  string
	Value string
}

// Header is an ordered list of header fields. Lookups ignore case; order and
// spelling of names are kept so a record can be written back as it was read.
type Header []Field

// Get returns the value of the first field named name, or "".
func (h Header) Get(name string) string {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Has reports whether a field named name is present.
func (h Header) Has(name string) bool {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return true
		}
	}
	return false
}

// Values returns the values of every field named name, in order.
func (h Header) Values(name string) []string {
	var out []string
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			out = append(out, f.Value)
		}
	}
	return out
}

// Set replaces the first field named name (removing any later ones), or
// appends the field when absent.
func (h *Header) Set(name, value string) {
	idx := -1
	out := (*h)[:0]
	for _, f := range *h {
		if strings.EqualFold(f.Name, name) {
			if idx >= 0 {
				continue
			}
			idx = len(out)
			f.Value = value
		}
		out = append(out, f)
	}
	*h = out
	if idx < 0 {
		*h = append(*h, Field{name, value})
	}
}

// Add appends a field, keeping existing ones of the same name.
func (h *Header) Add(name, value string) { *h = append(*h, Field{name, value}) }

// Del removes every field named name.
func (h *Header) Del(name string) {
	out := (*h)[:0]
	for _, f := range *h {
		if !strings.EqualFold(f.Name, name) {
			out = append(out, f)
		}
	}
	*h = out
}

// Clone returns a copy that shares no storage with h.
func (h Header) Clone() Header { return append(Header(nil), h...) }
