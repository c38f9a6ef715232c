package record

import (
	"crypto/sha1"
	"encoding/base32"
	"strings"
	"testing"
	"time"
)

func TestHeader(t *testing.T) {
	var h Header
	h.Add("WARC-Type", "response")
	h.Add("X-Dup", "1")
	h.Add("x-dup", "2")
	h.Add("Content-Length", "10")
	if h.Get("warc-type") != "response" || !h.Has("X-DUP") || h.Has("nope") {
		t.Fatalf("lookup: %v", h)
	}
	if v := h.Values("X-Dup"); len(v) != 2 || v[0] != "1" || v[1] != "2" {
		t.Fatalf("Values %v", v)
	}
	c := h.Clone()
	h.Set("X-DUP", "3")
	if got := h.Values("x-dup"); len(got) != 1 || got[0] != "3" || h[1].Name != "X-Dup" {
		t.Fatalf("Set kept %v (order/spelling must stay)", h)
	}
	h.Set("New", "v")
	if h[len(h)-1] != (Field{"New", "v"}) {
		t.Fatalf("Set did not append: %v", h)
	}
	h.Del("content-length")
	if h.Has("Content-Length") || len(h) != 3 {
		t.Fatalf("Del: %v", h)
	}
	if len(c) != 4 || c.Get("x-dup") != "1" {
		t.Fatalf("Clone shares storage: %v", c)
	}
}

func TestRecordAccessors(t *testing.T) {
	r := &Record{Header: Header{
		{FieldType, "response"}, {FieldTargetURI, "<http://example.com/a b>"},
		{FieldDate, "2017-03-06T04:03:53.123Z"}, {FieldContentLength, " 42 "}, {FieldRecordID, "<urn:uuid:x>"},
	}}
	if r.Type() != Response || r.TargetURI() != "http://example.com/a b" || r.ID() != "<urn:uuid:x>" || r.ContentLength() != 42 {
		t.Fatalf("accessors: %q %q %q %d", r.Type(), r.TargetURI(), r.ID(), r.ContentLength())
	}
	d, err := r.Date()
	if err != nil || !d.Equal(time.Date(2017, 3, 6, 4, 3, 53, 123e6, time.UTC)) {
		t.Fatalf("Date %v %v", d, err)
	}
	for _, v := range []string{"", "-1", "abc", "1e3"} {
		r.Header.Set(FieldContentLength, v)
		if r.ContentLength() != -1 {
			t.Errorf("Content-Length %q gave %d", v, r.ContentLength())
		}
	}
	if StripAngle("<") != "<" || StripAngle("<>") != "" || StripAngle("a>") != "a>" {
		t.Error("StripAngle")
	}
}

func TestDates(t *testing.T) {
	for in, want := range map[string]time.Time{
		"2014-02-16T05:02:21Z":        time.Date(2014, 2, 16, 5, 2, 21, 0, time.UTC),
		"2014-02-16T05:02:21.5Z":      time.Date(2014, 2, 16, 5, 2, 21, 5e8, time.UTC),
		"2014-02-16T06:02:21+01:00":   time.Date(2014, 2, 16, 5, 2, 21, 0, time.UTC),
		"2014-02-16T05:02Z":           time.Date(2014, 2, 16, 5, 2, 0, 0, time.UTC),
		"2014-02-16":                  time.Date(2014, 2, 16, 0, 0, 0, 0, time.UTC),
		"2014":                        time.Date(2014, 1, 1, 0, 0, 0, 0, time.UTC),
		" 2014-02-16T05:02:21Z\t":     time.Date(2014, 2, 16, 5, 2, 21, 0, time.UTC),
		"2014-02-16T05:02:21.123456Z": time.Date(2014, 2, 16, 5, 2, 21, 123456000, time.UTC),
	} {
		got, err := ParseDate(in)
		if err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ParseDate(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "20140216050221", "2014-13-01", "yesterday"} {
		if _, err := ParseDate(bad); err == nil {
			t.Errorf("ParseDate(%q) accepted", bad)
		}
	}
	ts := time.Date(2014, 2, 16, 5, 2, 21, 5e8, time.FixedZone("x", 3600))
	if FormatDate(ts, false) != "2014-02-16T04:02:21Z" || FormatDate(ts, true) != "2014-02-16T04:02:21.5Z" {
		t.Errorf("FormatDate: %s %s", FormatDate(ts, false), FormatDate(ts, true))
	}
	if Timestamp14(ts) != "20140216040221" {
		t.Errorf("Timestamp14 %s", Timestamp14(ts))
	}
}

func TestParseTimestamp(t *testing.T) {
	for _, tc := range []struct {
		in       string
		want     string
		repaired bool
		err      bool
	}{
		{in: "20140216050221", want: "20140216050221"},
		{in: "201404010000000000", want: "20140401000000", repaired: true},
		{in: "2014", want: "20140101000000", repaired: true},
		{in: "201402", want: "20140201000000", repaired: true},
		{in: "201", err: true},
		{in: "", err: true},
		{in: "2014021605022x", err: true},
		{in: "20141316050221", err: true},
	} {
		got, rep, err := ParseTimestamp(tc.in)
		if tc.err {
			if err == nil {
				t.Errorf("%q accepted", tc.in)
			}
			continue
		}
		if err != nil || Timestamp14(got) != tc.want || rep != tc.repaired {
			t.Errorf("%q: %s %v %v", tc.in, Timestamp14(got), rep, err)
		}
	}
}

func TestDigest(t *testing.T) {
	sum := sha1.Sum([]byte("hello"))
	b32 := base32.StdEncoding.EncodeToString(sum[:])
	for _, in := range []string{
		"sha1:" + b32,
		"SHA-1:" + strings.ToLower(b32),
		"sha1:" + strings.TrimRight(b32, "="),
		"sha1:aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d",
		"sha1:qvTGHdzF6KLavt4PO0gs2a6pQ00=",
		"sha1:qvTGHdzF6KLavt4PO0gs2a6pQ00",
	} {
		d, err := ParseDigest(in)
		if err != nil || d.Algorithm != "sha1" || string(d.Sum) != string(sum[:]) {
			t.Errorf("ParseDigest(%q) = %v, %v", in, d, err)
		}
		if d.String() != "sha1:"+b32 {
			t.Errorf("String %q", d.String())
		}
	}
	for _, bad := range []string{"", "sha1", "sha1:", "crc32:abcd", "sha1:!!!!", "sha1:AAAA"} {
		if _, err := ParseDigest(bad); err == nil {
			t.Errorf("ParseDigest(%q) accepted", bad)
		}
	}
	d, err := ParseDigest("sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
	if err != nil || d.String() != "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" {
		t.Errorf("sha256: %v %v", d, err)
	}
}

func TestProblem(t *testing.T) {
	p := &Problem{File: "big.arc.gz", Offset: 12345, Msg: `bad length "abc"`}
	if p.Error() != `big.arc.gz: record at offset 12345: bad length "abc"` {
		t.Error(p.Error())
	}
	if (&Problem{Msg: "x"}).Error() != "-: record at offset 0: x" {
		t.Error("stdin name")
	}
}

func FuzzParseDigest(f *testing.F) {
	f.Add("sha1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDigest(s)
		if err == nil {
			if d2, err := ParseDigest(d.String()); err != nil || string(d2.Sum) != string(d.Sum) {
				t.Fatalf("%q: String %q does not parse back", s, d.String())
			}
		}
	})
}
