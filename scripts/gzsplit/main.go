// Command gzsplit cuts a multi-member gzip file (a WARC.gz or ARC.gz with one
// member per record, as scripts/arcgen writes) into N smaller files at gzip
// member boundaries, for scripts/bench.sh's many-small-inputs rows. Members
// are spread evenly and kept in order: file i holds the members
// [i*M/N, (i+1)*M/N) of the M members, byte for byte. The files are named
// DIR/00000.warc.gz ... (the extension is taken from IN); the same input
// always gives the same files. DIR is made by renaming a temporary folder
// beside it, so an interrupted run leaves no partial DIR.
//
//	go run ./scripts/gzsplit -n 10000 -o out/bench/in/split in.warc.gz
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// memberEnds returns the end offset of every gzip member of path, in order.
func memberEnds(path string) ([]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := &countingReader{r: f}
	br := bufio.NewReaderSize(cr, 1<<20)
	// gzip reads a *bufio.Reader (an io.ByteReader) byte by byte, never past
	// the end of a member, so the offset is what br has handed out.
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("%s: offset 0: %v", path, err)
	}
	var ends []int64
	for {
		zr.Multistream(false)
		if _, err := io.Copy(io.Discard, zr); err != nil {
			var start int64
			if len(ends) > 0 {
				start = ends[len(ends)-1]
			}
			return nil, fmt.Errorf("%s: member %d at offset %d: %v", path, len(ends), start, err)
		}
		end := cr.n - int64(br.Buffered())
		ends = append(ends, end)
		if err := zr.Reset(br); err == io.EOF {
			return ends, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: offset %d: %v", path, end, err)
		}
	}
}

func main() {
	n := flag.Int("n", 10000, "number of output files")
	dir := flag.String("o", "", "output folder (must not exist)")
	flag.Parse()
	if flag.NArg() != 1 || *dir == "" || *n < 1 {
		log.Fatal("usage: gzsplit -n N -o DIR IN.gz")
	}
	in := flag.Arg(0)
	if _, err := os.Stat(*dir); err == nil {
		log.Fatalf("gzsplit: %s exists", *dir)
	}
	ends, err := memberEnds(in)
	if err != nil {
		log.Fatalf("gzsplit: %v", err)
	}
	m := len(ends)
	if *n > m {
		log.Fatalf("gzsplit: %s has %d members, fewer than -n %d", in, m, *n)
	}
	ext := ".gz"
	if i := strings.Index(filepath.Base(in), "."); i >= 0 {
		ext = filepath.Base(in)[i:]
	}
	tmp, err := os.MkdirTemp(filepath.Dir(*dir), filepath.Base(*dir)+".tmp")
	if err == nil {
		err = os.Chmod(tmp, 0o755) // MkdirTemp makes it 0700
	}
	if err != nil {
		log.Fatalf("gzsplit: %v", err)
	}
	f, err := os.Open(in)
	if err != nil {
		log.Fatalf("gzsplit: %v", err)
	}
	defer f.Close()
	var start int64
	for i := 0; i < *n; i++ {
		last := (i+1)*m / *n - 1
		end := ends[last]
		name := filepath.Join(tmp, fmt.Sprintf("%05d%s", i, ext))
		out, err := os.Create(name)
		if err == nil {
			_, err = io.Copy(out, io.NewSectionReader(f, start, end-start))
			if cerr := out.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			os.RemoveAll(tmp)
			log.Fatalf("gzsplit: %v", err)
		}
		start = end
	}
	if err := os.Rename(tmp, *dir); err != nil {
		os.RemoveAll(tmp)
		log.Fatalf("gzsplit: %v", err)
	}
}
