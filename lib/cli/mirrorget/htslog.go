package mirrorget

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/arcport/arcport/lib/internal/cliutil"
)

// htsLog is DIR/hts-log.txt, the log HTTrack keeps in a mirror and writes
// anew at each run: a header naming the start URLs, then one line per
// event, "HH:MM:SS<TAB>Error: <TAB>..." (Info, Warning, Error) in HTTrack's
// wording where there is one ("Not Found" (404) at link host/path (from
// host/), Purging DIR/host/file, Purging directory DIR/host/dir/, No files
// purged), and a closing summary. It is written as the run goes, so a
// killed run leaves what it logged.
//
// The header does not start with "HTTrack", so lib/htcache's log reader
// does not take a mirrorget log for HTTrack's; no credentials are in it
// (start URLs lose their userinfo before the mirror sees them).
type htsLog struct {
	mu                      sync.Mutex
	f                       *os.File // nil: no log (the path was refused)
	w                       *bufio.Writer
	err                     error // the first write error
	start                   time.Time
	errors, warnings, infos int
}

// newHTSLog starts the log on f (nil: a log that writes nothing).
func newHTSLog(f *os.File, seeds []string) *htsLog {
	l := &htsLog{f: f, start: time.Now()}
	if f == nil {
		return l
	}
	l.w = bufio.NewWriter(f)
	fmt.Fprintf(l.w, "mirrorget %s launched on %s at %s\n\n", cliutil.Version, l.start.Format(logDate), strings.Join(seeds, " "))
	l.w.WriteString("Information, Warnings and Errors reported for this mirror:\n\n")
	l.flush()
	return l
}

// logDate is the date layout of HTTrack's "launched on" line.
const logDate = "Mon, 02 Jan 2006 15:04:05"

// The kinds of lines, as HTTrack writes them.
const (
	logInfo    = "Info"
	logWarning = "Warning"
	logError   = "Error"
)

// printf writes one line of the given kind.
func (l *htsLog) printf(kind, format string, a ...any) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch kind {
	case logError:
		l.errors++
	case logWarning:
		l.warnings++
	default:
		l.infos++
	}
	if l.w == nil {
		return
	}
	msg := strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, fmt.Sprintf(format, a...))
	fmt.Fprintf(l.w, "%s\t%s: \t%s\n", time.Now().Format("15:04:05"), kind, msg)
	l.flush()
}

func (l *htsLog) flush() {
	if err := l.w.Flush(); err != nil && l.err == nil {
		l.err = err
	}
}

// close writes the summary and closes the file.
func (l *htsLog) close(summary string) error {
	if l == nil || l.f == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	state, counts, _ := strings.Cut(summary, ": ")
	fmt.Fprintf(l.w, "\nmirrorget %s in %s: %s\n(%d errors, %d warnings, %d messages)\n",
		state, time.Since(l.start).Round(time.Second), counts, l.errors, l.warnings, l.infos)
	l.flush()
	if err := l.f.Close(); err != nil && l.err == nil {
		l.err = err
	}
	l.f, l.w = nil, nil
	return l.err
}

// linkName is a URL as HTTrack's log names it: host/path, with the scheme
// only when it is not http.
func linkName(u string) string {
	return strings.TrimPrefix(u, "http://")
}
