package zimdump

import (
	"bufio"

	"github.com/arcport/arcport/lib/zim"
)

// listRange prints entries [begin, end) as zimdump's list does (paths, or
// details with details).
func listRange(w *bufio.Writer, a *zim.Archive, begin, end uint32, details bool) error {
	return a.Entries(begin, end, func(ent *zim.Entry) error {
		if details {
			return writeDetails(w, a, ent)
		}
		w.WriteString(a.PathOf(ent))
		w.WriteString("\n")
		return nil
	})
}
