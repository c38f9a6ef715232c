package zimdump

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/arcport/arcport/lib/zim"
)

// check prints one line per problem ("FILE: offset N: reason") and
// returns 1 when there is any, like zimcheck -I -C. The lines go to
// stdout: they are the report, and zimcheck prints its report (every
// [ERROR] line) on stdout too, so `zimdump check f.zim > report` keeps it.
func (e *env) check() int {
	ps := e.a.Check(zim.CheckOptions{Checksum: true, Clusters: true})
	for _, p := range ps {
		fmt.Fprintf(e.out, "%s: %s\n", e.p.file, oneLine(p.String()))
	}
	if len(ps) > 0 {
		return 1
	}
	return 0
}

// checkOpenFailed reports an archive that cannot even be opened.
func (e *env) checkOpenFailed(err error) int {
	fmt.Fprintf(e.out, "%s\n", oneLine(err.Error()))
	return 1
}

// oneLine folds a multi-line libzim message onto one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

type infoJSON struct {
	File          string   `json:"file"`
	Size          int64    `json:"size"`
	Version       string   `json:"version"`
	UUID          string   `json:"uuid"`
	Entries       uint32   `json:"entries"`
	AllEntries    uint32   `json:"all_entries"`
	Clusters      uint32   `json:"clusters"`
	Checksum      *string  `json:"checksum"`
	MainPage      *string  `json:"main_page"`
	Favicon       *string  `json:"favicon"`
	NewNamespaces bool     `json:"new_namespaces"`
	MimeTypes     []string `json:"mime_types"`
	Parts         []string `json:"parts"`
}

func (e *env) infoJSON() int {
	a := e.a
	h := a.Header()
	v := infoJSON{File: e.p.file, Size: a.Size(), Version: fmt.Sprintf("%d.%d", h.MajorVersion, h.MinorVersion),
		UUID: h.UUIDString(), Entries: a.UserEntryCount(), AllEntries: a.EntryCount(), Clusters: h.ClusterCount,
		NewNamespaces: a.NewNamespaceScheme(), MimeTypes: a.MimeTypes(), Parts: a.Parts()}
	if sum, ok := a.Checksum(); ok {
		v.Checksum = &sum
	}
	if h.HasMainPage() {
		m, err := mainPath(a)
		if err != nil {
			return e.fail(e.named(err, "main page"))
		}
		v.MainPage = &m
	}
	if fav, err := a.Illustration(48); err == nil {
		p := a.PathOf(fav)
		v.Favicon = &p
	} else if !errors.Is(err, zim.ErrNotFound) {
		return e.fail(e.named(err, "favicon"))
	}
	return e.writeJSON(v)
}

type entryJSON struct {
	Idx       uint32  `json:"idx"`
	Path      string  `json:"path"`
	Namespace string  `json:"namespace"`
	Title     string  `json:"title"`
	Type      string  `json:"type"`
	Mime      *string `json:"mime,omitempty"`
	Size      *int64  `json:"size,omitempty"`
	Cluster   *uint32 `json:"cluster,omitempty"`
	Blob      *uint32 `json:"blob,omitempty"`
	Redirect  *uint32 `json:"redirect_index,omitempty"`
	Target    *string `json:"redirect_path,omitempty"`
}

func (e *env) entryJSON(ent *zim.Entry) (*entryJSON, error) {
	a := e.a
	v := &entryJSON{Idx: ent.Index, Path: a.PathOf(ent), Namespace: string(ent.Namespace), Title: ent.Title()}
	switch ent.Kind {
	case zim.KindRedirect:
		v.Type = "redirect"
		ri := ent.RedirectIndex
		v.Redirect = &ri
		t, err := a.EntryAt(ri)
		if err != nil {
			return nil, err
		}
		tp := a.PathOf(t)
		v.Target = &tp
	case zim.KindItem:
		v.Type = "item"
		mt, err := a.MimeType(ent)
		if err != nil {
			return nil, err
		}
		size, err := a.BlobSize(ent)
		if err != nil {
			return nil, err
		}
		c, b := ent.Cluster, ent.Blob
		v.Mime, v.Size, v.Cluster, v.Blob = &mt, &size, &c, &b
	default:
		v.Type = "deprecated"
	}
	return v, nil
}

func (e *env) listJSON() int {
	p := e.p
	if p.has("idx") || p.has("url") {
		ent, err := e.selectOne()
		if err != nil {
			return e.fail(e.named(err, "entry "+e.selector()))
		}
		v, err := e.entryJSON(ent)
		if err != nil {
			return e.fail(e.named(err, "entry "+e.selector()))
		}
		return e.writeJSON(v)
	}
	begin, end := e.a.UserRange()
	if p.has("ns") {
		var err error
		if begin, end, err = e.a.FindByPrefix(p.opts["ns"]); err != nil {
			return e.fail(e.named(err, "namespace "+p.opts["ns"]))
		}
	}
	enc := json.NewEncoder(e.out)
	enc.SetEscapeHTML(false)
	err := e.a.Entries(begin, end, func(ent *zim.Entry) error {
		v, err := e.entryJSON(ent)
		if err != nil {
			return err
		}
		return enc.Encode(v)
	})
	if err != nil {
		return e.fail(e.named(err, "listing entries"))
	}
	return 0
}

// selector names the entry --idx or --url (with --ns) selects.
func (e *env) selector() string {
	if e.p.has("idx") {
		return "--idx=" + e.p.opts["idx"]
	}
	if e.p.has("ns") {
		return e.p.opts["ns"] + "/" + e.p.opts["url"]
	}
	return e.p.opts["url"]
}

func (e *env) writeJSON(v any) int {
	enc := json.NewEncoder(e.out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return e.exception(err)
	}
	return 0
}

type metaJSON struct {
	Name   string  `json:"name"`
	Mime   string  `json:"mime"`
	Size   int     `json:"size"`
	Value  *string `json:"value,omitempty"`
	Base64 *string `json:"value_base64,omitempty"`
}

// meta prints every M/ entry: "Name: value" (binary values summarised),
// or one JSON object per entry with --json.
func (e *env) meta() int {
	a := e.a
	ents, err := a.MetadataEntries()
	if err != nil {
		return e.fail(e.named(err, "metadata"))
	}
	for _, m := range ents {
		r, err := a.Resolve(m)
		if err != nil {
			return e.entryFail(m, err)
		}
		mt, err := a.MimeType(r)
		if err != nil {
			return e.entryFail(r, err)
		}
		data, err := a.ReadBlob(r)
		if err != nil {
			return e.entryFail(r, err)
		}
		text := utf8.Valid(data) && !strings.HasPrefix(mt, "image/") && !strings.Contains(string(data), "\x00")
		if e.p.has("json") {
			v := metaJSON{Name: m.Path, Mime: mt, Size: len(data)}
			if text {
				s := string(data)
				v.Value = &s
			} else {
				s := base64.StdEncoding.EncodeToString(data)
				v.Base64 = &s
			}
			if rc := e.writeJSON(v); rc != 0 {
				return rc
			}
			continue
		}
		if text {
			fmt.Fprintf(e.out, "%s: %s\n", m.Path, strings.ReplaceAll(string(data), "\n", `\n`))
		} else {
			fmt.Fprintf(e.out, "%s: <%s, %d bytes>\n", m.Path, mt, len(data))
		}
	}
	return 0
}
