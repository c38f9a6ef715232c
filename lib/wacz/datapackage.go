package wacz

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path"
	"regexp"
	"strings"
	"time"
)

// Version is the WACZ specification version this package writes.
const Version = "1.1.1"

// Well-known paths inside a WACZ.
const (
	DataPackagePath       = "datapackage.json"
	DataPackageDigestPath = "datapackage-digest.json"
	PagesPath             = "pages/pages.jsonl"
	ExtraPagesPath        = "pages/extraPages.jsonl"
	WebArchiveYAMLPath    = "webarchive.yaml"
	PagesCSVPath          = "pages.csv"
	ArchiveDir            = "archive/"
	IndexesDir            = "indexes/"
	PagesDir              = "pages/"
)

// DataPackage is datapackage.json, the WACZ manifest: a Frictionless Data
// Package (profile "data-package") with the WACZ properties.
type DataPackage struct {
	Profile      string     `json:"profile"`
	WACZVersion  string     `json:"wacz_version"`
	Title        string     `json:"title,omitempty"`
	Description  string     `json:"description,omitempty"`
	Created      string     `json:"created,omitempty"`
	Modified     string     `json:"modified,omitempty"`
	Software     string     `json:"software,omitempty"`
	MainPageURL  string     `json:"mainPageUrl,omitempty"`
	MainPageDate string     `json:"mainPageDate,omitempty"`
	Resources    []Resource `json:"resources"`
}

// Resource is one file of the WACZ as datapackage.json lists it.
type Resource struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Hash  string `json:"hash"`
	Bytes int64  `json:"bytes"`
}

// DigestFile is datapackage-digest.json.
type DigestFile struct {
	Path string `json:"path"`
	Hash string `json:"hash"`
	// SignedData is the signature of Hash, when the WACZ is signed.
	SignedData *SignedData `json:"signedData,omitempty"`
}

// resourceName is a Frictionless resource name for a zip path: the base
// name, lower case, with characters outside [-a-z0-9._/] replaced by "-".
func resourceName(p string) string {
	b := []byte(strings.ToLower(path.Base(p)))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '/') {
			b[i] = '-'
		}
	}
	return string(b)
}

var resourceNameRE = regexp.MustCompile(`^[-a-z0-9._/]+$`)

// Marshal encodes the data package as datapackage.json is written: indented
// JSON with a final newline, HTML characters not escaped.
func (d *DataPackage) Marshal() ([]byte, error) { return marshalIndent(d) }

// NewDigestFile returns datapackage-digest.json for the given bytes of
// datapackage.json (the digest is sha256 whatever the resources use).
func NewDigestFile(datapackage []byte) *DigestFile {
	s := sha256.Sum256(datapackage)
	return &DigestFile{Path: DataPackagePath, Hash: "sha256:" + hex.EncodeToString(s[:])}
}

func marshalIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// FormatTime formats t as the RFC 3339 datetimes WACZ uses (UTC, seconds,
// or with the fraction when t has one).
func FormatTime(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}
