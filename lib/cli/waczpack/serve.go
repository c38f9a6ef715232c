package waczpack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/replay"
	"github.com/arcport/arcport/lib/replay/access"
	"github.com/arcport/arcport/lib/store"
	"github.com/urfave/cli/v2"
)

func init() {
	// waczpack serve, its flags that take a value (for Reorder)
	commands["serve"] = true
	for _, f := range []string{"listen", "collection", "cache-dir", "auth-file", "acl", "acl-default", "embargo", "access-log"} {
		valueFlags[f] = true
	}
}

// namedSources collects repeated --collection NAME=SRC values (commas are
// kept: a SRC may hold one).
type namedSources []string

func (n *namedSources) Set(v string) error { *n = append(*n, v); return nil }
func (n *namedSources) String() string     { return strings.Join(*n, " ") }

// serveShutdown bounds the wait for requests in flight after SIGINT or
// SIGTERM.
const serveShutdown = 10 * time.Second

// serveCommand is `waczpack serve [--listen ADDR] [--collection NAME=SRC] SRC...`.
func serveCommand(stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "serve archives over HTTP: pywb's CDX server API at /COLL/cdx, captures at /COLL/TSid_/URL (see docs/waczpack.md#serve)",
		ArgsUsage: "SRC ...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:8080", Usage: "listen on `ADDR` (host:port; port 0 picks a free one)"},
			&cli.GenericFlag{Name: "collection", Value: &namedSources{}, Usage: "serve `NAME=SRC` as collection NAME (repeatable)"},
			&cli.StringFlag{Name: "cache-dir", Usage: "keep the indexes made for folders of WARC/ARC files in `DIR` (default: the user cache folder's arcport/serve)"},
			&cli.StringFlag{Name: "auth-file", Usage: "require the credentials of `FILE` on every route but /healthz: lines USER:PASSWORD (basic) and bearer NAME:TOKEN, each secret plain or sha256:HEX (see docs/waczpack.md#access)"},
			&cli.GenericFlag{Name: "acl", Value: &namedSources{}, Usage: "apply pywb's access rules of `[COLL=]FILE` (an .aclj file or a folder of them) to every collection or to COLL (repeatable)"},
			&cli.StringFlag{Name: "acl-default", Value: "allow", Usage: "the `ACCESS` of a capture no --acl rule matches: allow, block or exclude (pywb's default_access)"},
			&cli.GenericFlag{Name: "embargo", Value: &namedSources{}, Usage: "embargo captures of every collection or of COLL: `[COLL=]before=TS|after=TS|newer=SPAN|older=SPAN[,access=block]` (SPAN e.g. 1y6m; pywb's embargo; repeatable)"},
			&cli.BoolFlag{Name: "acl-user-header", Usage: "take the user --acl rules see from the X-Pywb-Acl-User request header (only behind a proxy that sets it; default: the --auth-file name)"},
			&cli.StringFlag{Name: "access-log", Usage: "write a line per request in the combined log format to `FILE` (- for stdout; no credentials, secret query values hidden)"},
			&cli.BoolFlag{Name: "q", Aliases: []string{"quiet"}, Usage: "print nothing but errors on stderr"},
		},
		Action: func(c *cli.Context) error { return serve(c, stderr) },
	}
}

func serve(c *cli.Context, stderr io.Writer) error {
	type named struct{ name, src string }
	var srcs []named
	for _, v := range *c.Generic("collection").(*namedSources) {
		name, src, ok := strings.Cut(v, "=")
		if !ok || name == "" || src == "" {
			return cliutil.Usagef("--collection %q: want NAME=SRC", v)
		}
		srcs = append(srcs, named{name, src})
	}
	for _, src := range c.Args().Slice() {
		srcs = append(srcs, named{replay.NameOf(src), src})
	}
	if len(srcs) == 0 {
		return cliutil.Usagef("serve needs at least one SRC (a .wacz, a ZipNum .idx, a .cdx/.cdxj, or a folder)")
	}
	seen := map[string]string{}
	for _, s := range srcs {
		if !replay.ValidName(s.name) {
			return cliutil.Usagef("%q: not a collection name (letters, digits, '-', '_', '.'; not all, healthz or static): use --collection NAME=%s", s.name, store.Redact(s.src))
		}
		if prev, dup := seen[s.name]; dup {
			return cliutil.Usagef("two sources named %q (%s and %s): use --collection NAME=SRC", s.name, store.Redact(prev), store.Redact(s.src))
		}
		seen[s.name] = s.src
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	var colls []*replay.Collection
	defer func() {
		for _, coll := range colls {
			coll.Close()
		}
	}()
	for _, s := range srcs {
		coll, err := replay.Open(ctx, s.name, s.src, replay.Options{CacheDir: c.String("cache-dir"), Store: cliutil.Store()})
		if err != nil {
			return err
		}
		colls = append(colls, coll)
	}
	srv, err := replay.NewServer(colls...)
	if err != nil {
		return cliutil.Usagef("%v", err)
	}
	srv.Log = log.New(stderr, "waczpack serve: ", 0)
	if err := serveAccess(c, srv, seen); err != nil {
		return err
	}
	if p := c.String("access-log"); p != "" {
		if p == "-" {
			srv.AccessLog = c.App.Writer
		} else {
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
			if err != nil {
				return fmt.Errorf("--access-log %s: %v", p, err)
			}
			defer f.Close()
			srv.AccessLog = f
		}
	}
	ln, err := net.Listen("tcp", c.String("listen"))
	if err != nil {
		return fmt.Errorf("--listen %s: %v", c.String("listen"), err)
	}
	hs := srv.HTTPServer()
	if !c.Bool("q") {
		fmt.Fprintf(stderr, "serving %d collection(s) on http://%s/\n", len(colls), ln.Addr())
		for _, coll := range colls {
			fmt.Fprintf(stderr, "  /%s/\t%s %s\n", coll.Name, coll.Kind, store.Redact(coll.Source))
		}
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), serveShutdown)
	defer cancel()
	err = hs.Shutdown(sctx)
	if e := <-done; !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	if err != nil {
		return fmt.Errorf("shutting down: %v", err)
	}
	if !c.Bool("q") {
		fmt.Fprintln(stderr, "stopped")
	}
	return nil
}

// serveAccess applies --auth-file, --acl, --acl-default, --embargo and
// --acl-user-header to srv (colls: the collection names).
func serveAccess(c *cli.Context, srv *replay.Server, colls map[string]string) error {
	if p := c.String("auth-file"); p != "" {
		a, err := access.LoadAuth(p)
		if err != nil {
			return cliutil.Usagef("--auth-file %v", err)
		}
		srv.SetAuth(a)
	}
	srv.ACLUserHeader = c.Bool("acl-user-header")
	// per collection ("" for all): its rule files and embargo
	acls := map[string][]string{}
	embargoes := map[string]*access.Embargo{}
	split := func(flag, v string) (string, string) {
		if name, rest, ok := strings.Cut(v, "="); ok {
			if _, known := colls[name]; known {
				return name, rest
			}
		}
		return "", v
	}
	for _, v := range *c.Generic("acl").(*namedSources) {
		coll, p := split("acl", v)
		acls[coll] = append(acls[coll], p)
	}
	for _, v := range *c.Generic("embargo").(*namedSources) {
		coll, spec := split("embargo", v)
		e, err := access.ParseEmbargo(spec)
		if err != nil {
			return cliutil.Usagef("--embargo %v", err)
		}
		if _, dup := embargoes[coll]; dup {
			return cliutil.Usagef("--embargo: two embargoes for %q", coll)
		}
		embargoes[coll] = e
	}
	def := c.String("acl-default")
	if len(acls) == 0 && len(embargoes) == 0 {
		if c.IsSet("acl-default") {
			return cliutil.Usagef("--acl-default needs --acl or --embargo")
		}
		return nil
	}
	for name := range colls {
		files := append(append([]string(nil), acls[""]...), acls[name]...)
		e := embargoes[name]
		if e == nil {
			e = embargoes[""]
		}
		if len(files) == 0 && e == nil {
			continue
		}
		a, err := access.ACL(def, e, files...)
		if err != nil {
			return cliutil.Usagef("--acl: %v", err)
		}
		if err := srv.SetAccess(name, a); err != nil {
			return err
		}
	}
	return nil
}
