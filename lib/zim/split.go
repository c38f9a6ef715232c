package zim

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
)

// MultiReaderAt joins several ReaderAt parts into one, as a split archive
// (foo.zimaa, foo.zimab, ...) or a multi-part embedded archive is read.
type MultiReaderAt struct {
	parts []part
	size  int64
	files []*os.File
}

type part struct {
	r        io.ReaderAt
	off, len int64
}

// NewMultiReaderAt returns the concatenation of the sections
// io.NewSectionReader(readers[i], 0, sizes[i]).
func NewMultiReaderAt(readers []io.ReaderAt, sizes []int64) *MultiReaderAt {
	m := &MultiReaderAt{}
	for i, r := range readers {
		m.parts = append(m.parts, part{r: r, off: m.size, len: sizes[i]})
		m.size += sizes[i]
	}
	return m
}

// Size returns the total size.
func (m *MultiReaderAt) Size() int64 { return m.size }

// ReadAt implements io.ReaderAt.
func (m *MultiReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("zim: negative offset")
	}
	if off >= m.size {
		return 0, io.EOF
	}
	i := sort.Search(len(m.parts), func(i int) bool { return m.parts[i].off+m.parts[i].len > off })
	n := 0
	for n < len(p) && i < len(m.parts) {
		pt := m.parts[i]
		rel := off + int64(n) - pt.off
		want := min(int64(len(p)-n), pt.len-rel)
		k, err := pt.r.ReadAt(p[n:n+int(want)], rel)
		n += k
		if int64(k) < want {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return n, err
		}
		i++
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Close closes the files opened by openParts.
func (m *MultiReaderAt) Close() error {
	var first error
	for _, f := range m.files {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// openParts opens base+"aa", base+"ab", ... up to the first missing name.
func openParts(base string) (*MultiReaderAt, []string, error) {
	m := &MultiReaderAt{}
	var names []string
	var rs []io.ReaderAt
	var sizes []int64
outer:
	for c0 := 'a'; c0 <= 'z'; c0++ {
		for c1 := 'a'; c1 <= 'z'; c1++ {
			name := base + string(c0) + string(c1)
			f, err := os.Open(name)
			if err != nil {
				break outer
			}
			st, err := f.Stat()
			if err != nil {
				f.Close()
				break outer
			}
			m.files = append(m.files, f)
			names = append(names, name)
			rs = append(rs, f)
			sizes = append(sizes, st.Size())
		}
	}
	if len(names) == 0 {
		return nil, nil, notFound(base)
	}
	mm := NewMultiReaderAt(rs, sizes)
	mm.files = m.files
	return mm, names, nil
}

// notFound is the error for an archive that is neither a file nor split
// parts: libzim's text (zimdump prints it after "Exception: "), matching
// fs.ErrNotExist for errors.Is.
type notFound string

func (e notFound) Error() string { return fmt.Sprintf("error 2 opening file \"%s", string(e)) }

func (e notFound) Unwrap() error { return fs.ErrNotExist }
