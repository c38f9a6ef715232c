package zimdump

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"net/url"
	"runtime"
	"sync"

	"github.com/arcport/arcport/lib/links"
	"github.com/arcport/arcport/lib/mirror"
	"github.com/arcport/arcport/lib/wacz"
	"github.com/arcport/arcport/lib/zim/xapian"
)

// pageJob is one entry of the ZIM on its way through createZIM: HTML
// pages and style sheets are read, their title taken, their links
// rewritten and their index documents built by a pageWorker, on all CPUs;
// createZIM then takes the jobs in path order and adds the documents and
// the entries as it would have made them itself.
type pageJob struct {
	cp     *capture
	i      int   // index in site.caps
	weight int64 // bytes of the pipeline's budget held
	done   chan struct{}
	// set by the worker
	buf            *bytes.Buffer // the content as stored; nil: the capture's body
	title          string
	lang           string // the main page's lang attribute
	live           int    // links rewritten to the live web
	warning        string // a link extraction that failed part way
	hasWarning     bool
	full, titleDoc *xapian.Document // nil: none
	err            error
}

// pageBudget bounds the bytes of the pages in flight (pages can be
// large: one at a time when a page alone exceeds it).
const pageBudget = 32 << 20

// maxPageWorkers bounds the workers of a pagePipeline (the clusters'
// compression takes about half the CPU time: 8 keep 16 CPUs busy).
const maxPageWorkers = 8

// pagePipeline prepares the entries of createZIM in order.
type pagePipeline struct {
	jobs    chan *pageJob // in path order, for createZIM
	stop    chan struct{}
	wg      sync.WaitGroup
	budget  byteBudget
	bufs    sync.Pool
	stopped sync.Once
}

// pageWorker is the state of one worker: its own stemmer cache
// (xapian.CachedStemmer is not safe for concurrent use) and head buffer.
type pageWorker struct {
	s       *site
	ix      *pageIndex // nil: no indexes
	stem    func(string) string
	head    []byte
	src     []byte      // the capture, read at once
	looked  []lookedURL // lookupURL's memo
	seed    maphash.Seed
	mainIdx int
	p       *pagePipeline
}

// preparePages starts the workers on the captures of order; close stops
// them (it must be called).
func (s *site) preparePages(order []int, mainIdx int, ix *pageIndex) *pagePipeline {
	// a worker per CPU, at most maxPageWorkers: each has its stemmer
	// cache (up to 1<<16 words) and buffers
	workers := min(runtime.GOMAXPROCS(0), maxPageWorkers)
	p := &pagePipeline{jobs: make(chan *pageJob, 4*workers), stop: make(chan struct{})}
	p.budget.init(pageBudget)
	work := make(chan *pageJob, 4*workers)
	for range workers {
		w := &pageWorker{s: s, ix: ix, head: make([]byte, 256<<10), mainIdx: mainIdx, p: p}
		if ix != nil {
			w.stem = ix.stem
			if st := xapian.StemmerFor(ix.lang); st != nil {
				w.stem = xapian.CachedStemmer(st, 1<<16) // as newPageIndex, one per worker
			}
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for j := range work {
				select {
				case <-p.stop:
				default:
					w.prepare(j)
				}
				close(j.done)
			}
		}()
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(p.jobs)
		defer close(work)
		for _, i := range order {
			cp := &s.caps[i]
			j := &pageJob{cp: cp, i: i, done: make(chan struct{})}
			if isHTMLType(cp.mime) || cp.mime == "text/css" {
				j.weight = min(cp.size, pageBudget)
				if !p.budget.acquire(j.weight) {
					return
				}
				select {
				case work <- j:
				case <-p.stop:
					return
				}
			} else {
				close(j.done) // read from the spool by createZIM
			}
			select {
			case p.jobs <- j:
			case <-p.stop:
				return
			}
		}
	}()
	return p
}

// release gives back what j holds, once its entry is added.
func (p *pagePipeline) release(j *pageJob) {
	if j.buf != nil && j.buf.Cap() <= 4<<20 {
		j.buf.Reset()
		p.bufs.Put(j.buf)
	}
	j.buf, j.full, j.titleDoc = nil, nil, nil
	p.budget.release(j.weight)
	j.weight = 0
}

// close stops the workers and waits for them (createZIM returning early).
func (p *pagePipeline) close() {
	p.stopped.Do(func() {
		close(p.stop)
		p.budget.close()
		for range p.jobs {
		}
		p.wg.Wait()
	})
}

func (p *pagePipeline) buffer() *bytes.Buffer {
	if b, ok := p.bufs.Get().(*bytes.Buffer); ok {
		return b
	}
	return new(bytes.Buffer)
}

// wholeMax is the largest capture a worker reads into memory at once
// (one read instead of one for every link); larger ones are streamed.
const wholeMax = 4 << 20

// prepare does for j what createZIM did page by page: the title, the
// links rewritten (into memory: pages are small; a page over the cluster
// size is spooled by the writer anyway), the index documents.
func (w *pageWorker) prepare(j *pageJob) {
	s, cp := w.s, j.cp
	f, err := s.open(cp)
	if err != nil {
		j.err = err
		return
	}
	defer f.Close()
	// the body, and a second reader of it for the link extractor
	var body, scan io.Reader
	var data []byte // the whole body, when read at once
	if cp.size <= wholeMax {
		if int64(cap(w.src)) < cp.size {
			w.src = make([]byte, cp.size)
		}
		n, err := io.ReadFull(f, w.src[:cp.size])
		switch err {
		case nil, io.EOF, io.ErrUnexpectedEOF:
			data = w.src[:n]
		default:
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				j.err = err
				return
			}
		}
	}
	ex := links.ForType(cp.mime, s.docURL(cp))
	isHTML := isHTMLType(cp.mime)
	if isHTML {
		var head []byte
		if data != nil {
			head = data[:min(len(data), len(w.head))]
		} else {
			n, _ := io.ReadFull(f, w.head[:min(int64(len(w.head)), cp.size)])
			head = w.head[:n]
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				j.err = err
				return
			}
		}
		j.title, _ = wacz.ExtractHTML(head, false)
		if j.i == w.mainIdx {
			j.lang = htmlLang(head)
		}
	}
	if data != nil {
		body = bytes.NewReader(data)
	} else {
		body = f
	}
	if ex != nil && (isHTML || cp.mime == "text/css") {
		if data != nil {
			scan = bytes.NewReader(data)
		} else {
			sf, err := s.open(cp)
			if err != nil {
				j.err = err
				return
			}
			defer sf.Close()
			scan = sf
		}
		base, _ := url.Parse(s.docURL(cp))
		j.buf = w.p.buffer()
		rw := mirror.Rewriter{TargetFunc: func(doc string, l *links.Link) string {
			v, live := s.targetVia(doc, l, w.lookupURL)
			if live {
				j.live++
			}
			return v
		}}
		_, err = rw.RewriteFrom(j.buf, body, cp.path, func(f links.Func) error { return ex(bufio.NewReader(scan), base, f) })
		var xe *mirror.ExtractError
		if errors.As(err, &xe) {
			j.warning, j.hasWarning = fmt.Sprintf("%s: %v", s.where(cp), xe.Err), true
			err = nil
		}
		if err != nil {
			j.err = fmt.Errorf("%s: %v", s.where(cp), err)
			return
		}
		if isHTML {
			fixEmptyLinks(j.buf)
		}
	}
	if w.ix != nil && isHTML {
		if j.buf == nil {
			j.buf = w.p.buffer()
			if _, err := j.buf.ReadFrom(body); err != nil {
				j.err = fmt.Errorf("%s: %v", s.where(cp), err)
				return
			}
		}
		// the page as stored
		j.full, j.titleDoc = w.ix.docs(cp.path, j.title, cp.mime, j.buf.Bytes(), w.stem)
	}
}

// lookedURL is an answer of site.lookupURL.
type lookedURL struct {
	url, path string
	ok        bool
}

// lookedSlots is the size of a worker's memo of lookupURL.
const lookedSlots = 1 << 12

// lookupURL is site.lookupURL with a memo of the worker's own (pages
// link to the same URLs again and again; the site does not change while
// pages are prepared): a slot for each hash of the URL, the last URL
// wins (no allocation, a fixed size).
func (w *pageWorker) lookupURL(u string) (string, bool) {
	if w.looked == nil {
		w.looked = make([]lookedURL, lookedSlots)
		w.seed = maphash.MakeSeed()
	}
	e := &w.looked[maphash.String(w.seed, u)%lookedSlots]
	if e.url == u && e.url != "" {
		return e.path, e.ok
	}
	p, ok := w.s.lookupURL(u)
	*e = lookedURL{u, p, ok}
	return p, ok
}

// byteBudget is a counting semaphore of bytes; a single request larger
// than the whole budget waits until nothing else is held.
type byteBudget struct {
	mu        sync.Mutex
	cond      sync.Cond
	max, used int64
	closed    bool
}

func (b *byteBudget) init(max int64) {
	b.max = max
	b.cond.L = &b.mu
}

// acquire takes n bytes, false once closed.
func (b *byteBudget) acquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for !b.closed && b.used > 0 && b.used+n > b.max {
		b.cond.Wait()
	}
	if b.closed {
		return false
	}
	b.used += n
	return true
}

func (b *byteBudget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

func (b *byteBudget) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cond.Broadcast()
}
