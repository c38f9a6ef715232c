package waczpack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/internal/tailfile"
	"github.com/arcport/arcport/lib/store"
	"github.com/arcport/arcport/lib/wacz"
)

func mergeFlags(withOut bool) []cli.Flag {
	fs := []cli.Flag{
		&cli.StringFlag{Name: "title", Usage: "collection title (default: the first input's)"},
		&cli.StringFlag{Name: "desc", Usage: "collection description (default: the first input's)"},
		&cli.StringFlag{Name: "hash", Value: "sha256", Usage: "resource hash: sha256 or md5"},
		&cli.StringFlag{Name: "tmpdir", Usage: "directory for temporary files (default: beside the output)"},
		draftFilesFlag(true),
		signKeyFlag, signURLFlag, signTokenFlag,
		&cli.BoolFlag{Name: "q", Aliases: []string{"quiet"}, Usage: "no warnings or summary on stderr"},
		&cli.BoolFlag{Name: "v", Aliases: []string{"verbose"}, Usage: "print a summary"},
	}
	if withOut {
		fs = append([]cli.Flag{&cli.StringFlag{Name: "o", Aliases: []string{"output"}, Usage: "WACZ file to write (required)"}}, fs...)
	}
	return fs
}

// draftFilesFlag is --draft-files of create, merge and add (kept says
// that they are written anyway when a WACZ read has them).
func draftFilesFlag(kept bool) cli.Flag {
	u := "also write the seed draft's webarchive.yaml and pages.csv at the root (for tools that read that layout; py-wacz 0.6.0 wacz validate refuses a WACZ with them)"
	if kept {
		u = "write the seed draft's webarchive.yaml and pages.csv at the root (without it they are written only when a WACZ read has them; py-wacz 0.6.0 wacz validate refuses a WACZ with them)"
	}
	return &cli.BoolFlag{Name: "draft-files", Usage: u}
}

// mergeCommand is `waczpack merge -o OUT.wacz A.wacz B.wacz ...`.
func mergeCommand(stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "combine WACZ files into one: WARCs copied as they are, indexes merged, pages joined, datapackage rebuilt",
		ArgsUsage: "-o OUT.wacz FILE.wacz ...",
		Flags:     mergeFlags(true),
		Action:    func(c *cli.Context) error { return merge(c, stderr) },
	}
}

// addCommand is `waczpack add SITE.wacz MORE.warc.gz ...`.
func addCommand(stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "append WARC/ARC files to a WACZ, rewriting its index, pages and datapackage (the WACZ's WARCs are copied as they are)",
		ArgsUsage: "SITE.wacz FILE ...",
		Flags:     mergeFlags(false),
		Action:    func(c *cli.Context) error { return add(c, stderr) },
	}
}

func mergeOptions(c *cli.Context, stderr io.Writer) (wacz.MergeOptions, error) {
	o := wacz.MergeOptions{
		Title:       c.String("title"),
		Description: c.String("desc"),
		HashAlg:     c.String("hash"),
		Software:    "arcport waczpack " + cliutil.Version,
		TempDir:     c.String("tmpdir"),
		DraftFiles:  c.Bool("draft-files"),
	}
	if o.HashAlg != "sha256" && o.HashAlg != "md5" {
		return o, cliutil.Usagef("--hash must be sha256 or md5")
	}
	if !c.Bool("q") {
		o.Warn = func(s string) { fmt.Fprintln(stderr, s) }
	}
	signer, err := signerFromFlags(c, o.Software, stderr)
	if err != nil {
		return o, err
	}
	o.Signer = signer
	return o, nil
}

func merge(c *cli.Context, stderr io.Writer) error {
	out := c.String("o")
	if out == "" || out == "-" {
		return cliutil.Usagef("merge needs -o OUT.wacz (a file: a zip cannot go to stdout)")
	}
	if c.NArg() == 0 {
		return cliutil.Usagef("merge needs WACZ files to merge")
	}
	opts, err := mergeOptions(c, stderr)
	if err != nil {
		return err
	}
	return mergeInto(c, out, c.Args().Slice(), "", opts, stderr)
}

// mergeInto merges the WACZ files names (and extra, a local WACZ, when
// not empty) into out.
func mergeInto(c *cli.Context, out string, names []string, extra string, opts wacz.MergeOptions, stderr io.Writer) error {
	var readers []*wacz.Reader
	defer func() {
		for _, r := range readers {
			r.Close()
		}
	}()
	for _, n := range append(names, extra) {
		if n == "" {
			continue
		}
		var r *wacz.Reader
		var err error
		if n == extra {
			r, err = openAdded(n)
		} else {
			if err := recoverAdd(n, c.App.ErrWriter); err != nil {
				return err
			}
			r, err = openWACZ(n)
		}
		if err != nil {
			return err
		}
		readers = append(readers, r)
		if err := r.CheckEntries(); err != nil {
			return err
		}
	}
	if opts.TempDir == "" && !cliutil.IsRemote(out) {
		opts.TempDir = dirOf(out)
	}
	af, zf, err := createWACZ(out, opts.TempDir)
	if err != nil {
		return err
	}
	defer af.Abort()
	st, err := wacz.Merge(zf, readers, opts)
	if err != nil {
		return err
	}
	if tf, ok := zf.(*tailfile.File); ok {
		if err := tf.Close(); err != nil {
			return err
		}
	}
	if err := af.Commit(); err != nil {
		return err
	}
	if c.Bool("v") && !c.Bool("q") {
		fmt.Fprintf(stderr, "%s: %d inputs, %d WARCs copied as they were (%d renamed), %d bytes of WARC, %d captures, %d pages\n",
			out, st.Inputs, st.WARCs, st.Renamed, st.ArchiveLen, st.Captures, st.Pages)
	}
	return nil
}

func add(c *cli.Context, stderr io.Writer) error {
	if c.NArg() < 2 {
		return cliutil.Usagef("add needs SITE.wacz and WARC/ARC files to add")
	}
	site := c.Args().First()
	inputs, err := cliutil.ExpandInputs(c.Args().Slice()[1:])
	if err != nil {
		return err
	}
	if len(inputs) == 0 {
		return fmt.Errorf("%s: no objects under the prefix", c.Args().Get(1))
	}
	opts, err := mergeOptions(c, stderr)
	if err != nil {
		return err
	}
	tmpDir := opts.TempDir
	if tmpDir == "" && !cliutil.IsRemote(site) {
		tmpDir = dirOf(site)
	}
	if !cliutil.IsRemote(site) {
		return addInPlace(c, site, inputs, opts, tmpDir, stderr)
	}
	if store.KindOf(site) == store.S3 {
		// An object cannot be appended to: the new object's unchanged
		// prefix is copied by the server, the rest uploaded.
		done, err := addS3(c, site, inputs, opts, stderr)
		if done || err != nil {
			return err
		}
	}
	// Otherwise (a prefix under S3's 5 MiB smallest part) the WACZ is
	// written again whole, its WARCs copied as they are.
	if c.Bool("v") && !c.Bool("q") {
		fmt.Fprintf(stderr, "%s: written again whole (an object cannot be appended to, and its unchanged prefix is under S3's 5 MiB smallest part)\n", store.Redact(site))
	}
	// the new WARCs become a WACZ of their own (indexed, pages found) in a
	// temporary file, which is then merged with the site
	tmp, err := os.CreateTemp(tmpDir, ".waczpack-add-*.wacz")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	w, err := wacz.NewWriter(tmp, wacz.Options{
		HashAlg:  opts.HashAlg,
		Software: opts.Software,
		TempDir:  tmpDir,
		Warn:     opts.Warn,
	})
	if err != nil {
		return err
	}
	for _, name := range inputs {
		f, shown, err := cliutil.OpenInput(name)
		if err != nil {
			w.Close()
			return err
		}
		err = w.AddInput(shown, f)
		f.Close()
		if err != nil {
			w.Close()
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	return mergeInto(c, site, []string{site}, tmp.Name(), opts, stderr)
}

// openAdded opens the temporary WACZ of the files add adds, named so in
// messages.
func openAdded(path string) (*wacz.Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	r, err := wacz.OpenCloser(f, st.Size(), "added files")
	if err != nil {
		f.Close()
	}
	return r, err
}

// addInPlace appends inputs to the local WACZ site in place
// (wacz.Appender): the WACZ's WARCs stay where they are, only the index,
// pages and manifest after them are written again, under a journal that
// makes an interrupted add roll back.
func addInPlace(c *cli.Context, site string, inputs []string, mo wacz.MergeOptions, tmpDir string, stderr io.Writer) error {
	a, err := wacz.OpenAppend(site, wacz.Options{
		Title:       mo.Title,
		Description: mo.Description,
		HashAlg:     mo.HashAlg,
		Software:    mo.Software,
		TempDir:     tmpDir,
		Warn:        mo.Warn,
		Signer:      mo.Signer,
		DraftFiles:  mo.DraftFiles,
	})
	if err != nil {
		return err
	}
	if st := a.Stats(); st.RolledBack && !c.Bool("q") {
		fmt.Fprintf(stderr, "%s: an interrupted add was rolled back (journal %s): the WACZ is as it was before it\n", site, wacz.JournalPath(site))
	}
	for _, name := range inputs {
		f, shown, err := cliutil.OpenInput(name)
		if err != nil {
			a.Abort()
			return err
		}
		err = a.AddInput(shown, f)
		f.Close()
		if err != nil {
			a.Abort()
			return err
		}
	}
	if err := a.Close(); err != nil {
		return err
	}
	if c.Bool("v") && !c.Bool("q") {
		st := a.Stats()
		how := "merged as read"
		if !st.IndexMerged {
			how = "sorted again"
		}
		fmt.Fprintf(stderr, "%s: %d bytes kept in place, %d bytes written (journal %d), %d -> %d bytes; %d records, %d captures added to %d (index %s), %d pages added to %d\n",
			site, st.Kept, st.Written(), st.Journal, st.OldSize, st.NewSize, st.Records, st.Captures, st.OldCaptures, how, st.Pages, st.OldPages)
	}
	return nil
}

// recoverAdd rolls back an interrupted add to the local WACZ name, if
// its journal is there, and says so on stderr.
func recoverAdd(name string, stderr io.Writer) error {
	if cliutil.IsRemote(name) || name == "-" {
		return nil
	}
	done, err := wacz.RecoverAppend(name)
	if err != nil {
		return err
	}
	if done && stderr != nil {
		fmt.Fprintf(stderr, "%s: an interrupted add was rolled back (journal %s): the WACZ is as it was before it\n", name, wacz.JournalPath(name))
	}
	return nil
}

// errSmallPrefix: the unchanged prefix of an s3:// WACZ is too small for
// a server-side copy.
var errSmallPrefix = errors.New("prefix under the smallest part")

// addS3 appends inputs to the s3:// WACZ site as a new object whose
// unchanged prefix (every byte before the old index, pages and manifest:
// the old WARCs) the server copies from the old one (UploadPartCopy,
// pinned to the ETag read), the new WARCs, index, pages, manifest and zip
// directory uploaded after it; the object is replaced at commit only.
// done is false, with no error, when that prefix is under S3's smallest
// part: the caller rewrites the WACZ whole.
func addS3(c *cli.Context, site string, inputs []string, mo wacz.MergeOptions, stderr io.Writer) (done bool, err error) {
	ra, err := cliutil.OpenAt(site)
	if err != nil {
		return false, err
	}
	defer ra.Close()
	etag := ""
	if f, ok := ra.(*store.File); ok {
		etag = f.ETag()
	}
	var w store.Writer
	var tf *tailfile.File
	defer func() {
		if w != nil && err != nil {
			w.Abort()
		}
	}()
	create := func(cut int64) (wacz.ZipFile, error) {
		if cut < store.MinCopyPrefix {
			return nil, errSmallPrefix
		}
		var err error
		w, err = cliutil.Store().CreateAfterCopy(context.Background(), site, site, cut, etag)
		if err != nil {
			return nil, err
		}
		tf = tailfile.New(w, 8<<20, mo.TempDir)
		return &shiftedFile{tf, cut}, nil
	}
	a, err := wacz.OpenAppendAt(ra, ra.Size(), store.Redact(site), create, wacz.Options{
		Title:       mo.Title,
		Description: mo.Description,
		HashAlg:     mo.HashAlg,
		Software:    mo.Software,
		TempDir:     mo.TempDir,
		Warn:        mo.Warn,
		Signer:      mo.Signer,
		DraftFiles:  mo.DraftFiles,
	})
	if errors.Is(err, errSmallPrefix) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, name := range inputs {
		f, shown, err := cliutil.OpenInput(name)
		if err != nil {
			a.Abort()
			return true, err
		}
		err = a.AddInput(shown, f)
		f.Close()
		if err != nil {
			a.Abort()
			return true, err
		}
	}
	if err := a.Close(); err != nil {
		return true, err
	}
	if err := tf.Close(); err != nil {
		return true, err
	}
	if err := w.Commit(); err != nil {
		return true, err
	}
	if c.Bool("v") && !c.Bool("q") {
		st := a.Stats()
		fmt.Fprintf(stderr, "%s: %d bytes copied by the server (UploadPartCopy), %d bytes uploaded, %d -> %d bytes; %d records, %d captures added to %d, %d pages added to %d\n",
			store.Redact(site), st.Kept, st.Written(), st.OldSize, st.NewSize, st.Records, st.Captures, st.OldCaptures, st.Pages, st.OldPages)
	}
	return true, nil
}

// shiftedFile is a ZipFile whose offset 0 is offset base of the WACZ:
// the tail of an object whose first base bytes the server copies.
type shiftedFile struct {
	f    *tailfile.File
	base int64
}

func (s *shiftedFile) Write(p []byte) (int, error) { return s.f.Write(p) }

func (s *shiftedFile) ReadAt(p []byte, off int64) (int, error) { return s.f.ReadAt(p, off-s.base) }

func (s *shiftedFile) Seek(off int64, whence int) (int64, error) {
	if whence == io.SeekStart {
		off -= s.base
	}
	n, err := s.f.Seek(off, whence)
	return n + s.base, err
}

func (s *shiftedFile) Truncate(size int64) error { return s.f.Truncate(size - s.base) }

// Release passes on the bytes before off (a wacz.Releaser).
func (s *shiftedFile) Release(off int64) error { return s.f.Release(off - s.base) }
