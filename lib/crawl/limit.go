package crawl

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/arcport/arcport/lib/httpmsg"
)

// Filters and limits of a crawl (HTTrack's -m, -E, -M and MIME rules;
// wget's -A/-R and --quota):
//
//   - AcceptMIME and RejectMIME are decided on the Content-Type of each
//     successful (2xx but 204) response as soon as its head is received: a
//     refused response is neither read further nor handed to the sink, and
//     its links are not followed. HTML pages carry the links: refusing
//     text/html stops the crawl at the start pages.
//   - MaxSizeHTML and MaxSizeOther truncate bodies by kind, as MaxSize does
//     for every body (the smaller limit applies).
//   - MinSize drops successful responses whose body is smaller.
//   - MaxTime, MaxPages and MaxBytes end the crawl (Run returns a
//     *LimitError).

// Limit names a crawl-wide limit of Config.
type Limit string

// The limits that can end a crawl.
const (
	LimitTime  Limit = "max-time"  // Config.MaxTime
	LimitPages Limit = "max-pages" // Config.MaxPages
	LimitBytes Limit = "max-bytes" // Config.MaxBytes
)

// LimitError is returned by Run when a limit of Config ended the crawl
// while URLs were left: the captures handed to the sink are complete (with
// MaxTime, fetches under way were cut and dropped, as on cancellation; with
// MaxPages and MaxBytes they were finished), and with a Frontier the URLs
// not fetched stay queued, so that a later run carries on. Test for it
// with errors.As; it also matches ErrLimit with errors.Is.
type LimitError struct {
	Limit Limit
}

// ErrLimit is the sentinel matched by every *LimitError.
var ErrLimit = errors.New("crawl limit reached")

func (e *LimitError) Error() string { return "crawl limit reached: " + string(e.Limit) }

// Is makes errors.Is(err, ErrLimit) hold.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// ParseMIMEPattern checks a media type pattern for AcceptMIME and
// RejectMIME and returns it in lower case: a type ("text/html"), a type
// with wildcards ("image/*", "*/xml", "application/*+json"), or "*".
func ParseMIMEPattern(p string) (string, error) {
	q := strings.ToLower(strings.TrimSpace(p))
	if q == "" {
		return "", fmt.Errorf("MIME pattern %q: empty", p)
	}
	if q != "*" && strings.Count(q, "/") != 1 {
		return "", fmt.Errorf("MIME pattern %q: want TYPE/SUBTYPE (wildcards *)", p)
	}
	for i := 0; i < len(q); i++ {
		c := q[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("/*!#$&-^_.+", c) >= 0) {
			return "", fmt.Errorf("MIME pattern %q: bad character %q", p, c)
		}
	}
	return q, nil
}

// MatchMIME reports whether the media type typ (lower case, without
// parameters) matches pattern, where * stands for any run of characters
// (in time linear in len(pattern)*len(typ)).
func MatchMIME(pattern, typ string) bool {
	pi, ti, star, mark := 0, 0, -1, 0
	for ti < len(typ) {
		switch {
		case pi < len(pattern) && pattern[pi] == '*':
			star, mark = pi, ti
			pi++
		case pi < len(pattern) && pattern[pi] == typ[ti]:
			pi++
			ti++
		case star >= 0:
			// the last star takes one character more
			pi = star + 1
			mark++
			ti = mark
		default:
			return false
		}
	}
	for pi < len(pattern) && pattern[pi] == '*' {
		pi++
	}
	return pi == len(pattern)
}

// filtered reports whether the filters on content (MIME type, MinSize)
// apply to a response of this status: successful ones with a body.
// Redirects, errors and 304 are kept whatever their type and size.
func filtered(status int) bool {
	return status >= 200 && status < 300 && status != 204
}

// mimeRefusal returns why a response of media type mime is refused by the
// MIME filters ("" when it is accepted). A response without a
// Content-Type is application/octet-stream (RFC 9110 8.3).
func (cfg *Config) mimeRefusal(mime string) string {
	if len(cfg.AcceptMIME) == 0 && len(cfg.RejectMIME) == 0 {
		return ""
	}
	if mime == "" {
		mime = "application/octet-stream"
	}
	if len(cfg.AcceptMIME) > 0 {
		ok := false
		for _, p := range cfg.AcceptMIME {
			if MatchMIME(p, mime) {
				ok = true
				break
			}
		}
		if !ok {
			return "mime " + mime
		}
	}
	for _, p := range cfg.RejectMIME {
		if MatchMIME(p, mime) {
			return "mime " + mime
		}
	}
	return ""
}

// policyFor returns what the fetcher does with the body of a response to
// u once its head h is read: the size past which it is cut (0: no limit),
// or why it is refused (not read, not kept).
func (cfg *Config) policyFor(u string) bodyPolicy {
	return func(h *httpmsg.Head) (int64, string) {
		mime := h.MIME()
		if filtered(h.StatusCode) {
			if r := cfg.mimeRefusal(mime); r != "" {
				return 0, r
			}
		}
		limit := cfg.MaxSize
		kind := cfg.MaxSizeOther
		if docKind(mime, u) == "html" {
			kind = cfg.MaxSizeHTML
		}
		if kind > 0 && (limit <= 0 || kind < limit) {
			limit = kind
		}
		return limit, ""
	}
}

// sizeRefusal returns why a complete response is dropped by MinSize ("" when
// it is kept). The size is that of the body as received, without the
// chunked framing and before content decoding (what Content-Length counts).
func (cfg *Config) sizeRefusal(ex *exchange) string {
	if cfg.MinSize <= 0 || ex.err != nil || ex.head == nil || ex.resp == nil || !filtered(ex.head.StatusCode) {
		return ""
	}
	var n int64
	raw := ex.resp.Size() - ex.bodyOff
	if ex.head.Chunked() {
		n, _ = io.Copy(io.Discard, io.LimitReader(httpmsg.NewChunkedReader(ex.resp.Section(ex.bodyOff, raw)), cfg.MinSize))
	} else {
		n = raw
	}
	if n < cfg.MinSize {
		return fmt.Sprintf("size %d < min-size %d", n, cfg.MinSize)
	}
	return ""
}

// limitLocked returns the limit on pages or bytes the crawl has reached,
// or "".
func (c *Crawler) limitLocked() Limit {
	switch {
	case c.cfg.MaxPages > 0 && c.stats.Pages >= c.cfg.MaxPages:
		return LimitPages
	case c.cfg.MaxBytes > 0 && c.stats.Received >= c.cfg.MaxBytes:
		return LimitBytes
	}
	return ""
}

// noteLimitLocked records a limit on pages or bytes as soon as it is
// reached; with a Frontier, no worker takes a URL from then on.
func (c *Crawler) noteLimitLocked() {
	if c.limit != "" {
		return
	}
	if l := c.limitLocked(); l != "" {
		c.limit = l
		if c.shared != nil {
			c.shared.halted.Do(func() { close(c.shared.halt) })
		}
		c.cond.Broadcast()
	}
}

// pagesFullLocked reports that no other URL may be started under MaxPages
// now: the captures made and the URLs under way make MaxPages.
func (c *Crawler) pagesFullLocked() bool {
	return c.cfg.MaxPages > 0 && c.stats.Pages+c.inPages >= c.cfg.MaxPages
}
