package replay

import (
	"path/filepath"
	"strings"
)

// dirSource is DirectoryIndexSource: every *.cdx, *.cdxj (file sources)
// and *.idx, *.summary (ZipNum) of a folder, merged as pywb merges them.
type dirSource struct {
	dir   string
	canon canonFunc
}

func (s *dirSource) children() ([]namedSource, error) {
	ents, err := readDirCached(s.dir)
	if err != nil {
		return nil, errNotFound
	}
	var out []namedSource
	for _, e := range ents {
		n := e.Name()
		p := filepath.Join(s.dir, n)
		switch {
		case strings.HasSuffix(n, ".cdx") || strings.HasSuffix(n, ".cdxj"):
			out = append(out, namedSource{n, &fileSource{open: localFile(p), canon: s.canon}})
		case strings.HasSuffix(n, ".idx") || strings.HasSuffix(n, ".summary"):
			z, err := newZipNumSource(nil, p, "")
			if err != nil {
				continue
			}
			z.canon = s.canon
			out = append(out, namedSource{n, z})
		}
	}
	return out, nil
}

func (s *dirSource) load(q *query) (iterFunc, error) {
	kids, err := s.children()
	if err != nil {
		return nil, err
	}
	return aggregate(kids, q, func(name string) string { return strings.SplitN(name, "/", 2)[0] })
}
