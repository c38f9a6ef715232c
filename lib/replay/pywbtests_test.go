package replay

// The expected outputs written in pywb 2.10's own tests, as table-driven
// cases: pywb/warcserver/index/test/test_cdxops.py and test_zipnum.py
// (doctests, extracted from the files as they are: see pywbCases),
// their pytest functions, tests/test_cdx_server_app.py (the warcserver's
// index API, here /COLL/cdx) and the CDX lines of tests/test_memento.py's
// timemaps.

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// srcSpec is one source of a pywb test: a name and "CDX/file",
// "CDX/" (the folder) or "ZIP/file.idx", relative to the sample archive.
type srcSpec struct{ name, path string }

func buildSources(t *testing.T, specs []srcSpec) indexSource {
	t.Helper()
	sa := sampleArchive(t)
	var kids []namedSource
	for _, s := range specs {
		p := strings.NewReplacer("CDX/", filepath.Join(sa, "cdx")+"/", "ZIP/", filepath.Join(sa, "zipcdx")+"/").Replace(s.path)
		var src indexSource
		switch {
		case strings.HasSuffix(p, "/"):
			src = &dirSource{dir: p}
		case strings.HasSuffix(p, ".idx"):
			z, err := newZipNumSource(nil, p, "")
			if err != nil {
				t.Fatal(err)
			}
			src = z
		default:
			src = &fileSource{open: localFile(p)}
		}
		kids = append(kids, namedSource{s.name, src})
	}
	return &multiSource{kids: kids}
}

// opsRun is pywb's cdx_ops_test_data: init_index_agg(sources) called
// with the parameters, nosource=true.
func opsRun(t *testing.T, specs []srcSpec, u string, params map[string]string, filters []string) ([]*cdxObj, error) {
	t.Helper()
	p := map[string]string{"url": u, "nosource": "true"}
	for k, v := range params {
		p[k] = v
	}
	q := &query{params: p, filters: filters, done: new([]func())}
	defer func() {
		for _, f := range *q.done {
			f()
		}
	}()
	it, err := runQuery(buildSources(t, specs), q)
	if err != nil {
		return nil, err
	}
	var out []*cdxObj
	for {
		c, err := it()
		if err != nil {
			return out, err
		}
		if c == nil {
			return out, nil
		}
		out = append(out, c)
	}
}

// opsText is cdx_ops_test's printing: to_json() for output=json, else
// to_text(fields).
func opsText(objs []*cdxObj, params map[string]string) string {
	var fields []string
	if f := params["fields"]; f != "" {
		fields = strings.Split(f, ",")
	}
	var b []byte
	for _, c := range objs {
		if params["output"] == "json" {
			b = c.toJSON(b, nil)
		} else {
			b = c.toText(b, fields)
		}
	}
	return string(b)
}

// pywbCases are the doctests of test_cdxops.py and test_zipnum.py,
// extracted by a script from the files (the call's arguments and the
// lines printed; zipnum's summary lines with their tabs, which the
// doctests show as four spaces).
var pywbCases = []struct {
	name, url string
	sources   []srcSpec
	params    map[string]string
	filters   []string
	want      string
	wantErr   string
}{
	{"cdxops.py: Merge Sort Multipe CDX Sources", "http://iana.org/", []srcSpec{{"dupes", "CDX/dupes.cdx"}, {"iana", "CDX/iana.cdx"}}, map[string]string{}, []string{}, "org,iana)/ 20140126200624 http://www.iana.org/ text/html 200 OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB - - 2258 334 iana.warc.gz\norg,iana)/ 20140127171238 http://iana.org unk 302 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ - - 343 1858 dupes.warc.gz\norg,iana)/ 20140127171238 http://www.iana.org/ warc/revisit - OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB - - 536 2678 dupes.warc.gz\n", ""},
	{"cdxops.py: Limit CDX Stream", "http://iana.org/_css/2013.1/fonts/opensans-bold.ttf", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"limit": "3"}, []string{}, "org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200625 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf application/octet-stream 200 YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 117166 198285 iana.warc.gz\norg,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200654 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf warc/revisit - YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 548 482544 iana.warc.gz\norg,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200706 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf warc/revisit - YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 552 495230 iana.warc.gz\n", ""},
	{"cdxops.py: Reverse CDX Stream", "http://iana.org/_css/2013.1/fonts/opensans-bold.ttf", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"limit": "3", "resolveRevisits": "True", "reverse": "True"}, []string{}, "org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126201308 https://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf application/octet-stream 200 YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 551 783712 iana.warc.gz 117166 198285 iana.warc.gz\norg,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126201249 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf application/octet-stream 200 YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 552 771773 iana.warc.gz 117166 198285 iana.warc.gz\norg,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126201240 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf application/octet-stream 200 YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 551 757988 iana.warc.gz 117166 198285 iana.warc.gz\n", ""},
	{"cdxops.py: Reverse CDX Stream", "http://iana.org/_js/2013.1/jquery.js", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"limit": "1", "resolveRevisits": "True", "reverse": "True"}, []string{}, "org,iana)/_js/2013.1/jquery.js 20140126201307 https://www.iana.org/_js/2013.1/jquery.js application/x-javascript 200 AAW2RS7JB7HTF666XNZDQYJFA6PDQBPO - - 543 778507 iana.warc.gz 33449 7311 iana.warc.gz\n", ""},
	{"cdxops.py: From & To", "http://example.com/", []srcSpec{{"dir", "CDX/"}}, map[string]string{"from_ts": "2013", "to": "2013"}, []string{}, "com,example)/ 20130729195151 http://test@example.com/ warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 591 355 example-url-agnostic-revisit.warc.gz\n", ""},
	{"cdxops.py: From & To", "http://example.com/", []srcSpec{{"dir", "CDX/"}}, map[string]string{"from_ts": "2014"}, []string{}, "com,example)/ 20140127171200 http://example.com text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1046 334 dupes.warc.gz\ncom,example)/ 20140127171251 http://example.com warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 553 11875 dupes.warc.gz\n", ""},
	{"cdxops.py: No results", "http://example.com/", []srcSpec{{"dir", "CDX/"}}, map[string]string{"to": "2012"}, []string{}, "", ""},
	{"cdxops.py: No matching results", "http://iana.org/dont_have_this", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"limit": "2", "resolveRevisits": "True", "reverse": "True"}, []string{}, "", ""},
	{"cdxops.py: No matching -- limit=1", "http://iana.org/dont_have_this", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"limit": "1", "resolveRevisits": "True", "reverse": "True"}, []string{}, "", ""},
	{"cdxops.py: Filter cdx (default: contains)", "http://iana.org/domains", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"matchType": "prefix"}, []string{"mimetype:html"}, "org,iana)/domains 20140126200825 http://www.iana.org/domains text/html 200 7UPSCLNWNZP33LGW6OJGSF2Y4CDG4ES7 - - 2912 610534 iana.warc.gz\norg,iana)/domains/arpa 20140126201248 http://www.iana.org/domains/arpa text/html 200 QOFZZRN6JIKAL2JRL6ZC2VVG42SPKGHT - - 2939 759039 iana.warc.gz\norg,iana)/domains/idn-tables 20140126201127 http://www.iana.org/domains/idn-tables text/html 200 HNCUFTJMOQOGAEY6T56KVC3T7TVLKGEW - - 8118 715878 iana.warc.gz\norg,iana)/domains/int 20140126201239 http://www.iana.org/domains/int text/html 200 X32BBNNORV4SPEHTQF5KI5NFHSKTZK6Q - - 2482 746788 iana.warc.gz\norg,iana)/domains/reserved 20140126201054 http://www.iana.org/domains/reserved text/html 200 R5AAEQX5XY5X5DG66B23ODN5DUBWRA27 - - 3573 701457 iana.warc.gz\norg,iana)/domains/root 20140126200912 http://www.iana.org/domains/root text/html 200 YWA2R6UVWCYNHBZJKBTPYPZ5CJWKGGUX - - 2691 657746 iana.warc.gz\norg,iana)/domains/root/db 20140126200927 http://www.iana.org/domains/root/db/ text/html 302 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ - - 446 671278 iana.warc.gz\norg,iana)/domains/root/db 20140126200928 http://www.iana.org/domains/root/db text/html 200 DHXA725IW5VJJFRTWBQT6BEZKRE7H57S - - 18365 672225 iana.warc.gz\norg,iana)/domains/root/servers 20140126201227 http://www.iana.org/domains/root/servers text/html 200 AFW34N3S4NK2RJ6QWMVPB5E2AIUETAHU - - 3137 733840 iana.warc.gz\n", ""},
	{"cdxops.py: Filter cdx (regex)", "http://iana.org/domains", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"matchType": "prefix"}, []string{"~mimetype:.*/html$"}, "org,iana)/domains 20140126200825 http://www.iana.org/domains text/html 200 7UPSCLNWNZP33LGW6OJGSF2Y4CDG4ES7 - - 2912 610534 iana.warc.gz\norg,iana)/domains/arpa 20140126201248 http://www.iana.org/domains/arpa text/html 200 QOFZZRN6JIKAL2JRL6ZC2VVG42SPKGHT - - 2939 759039 iana.warc.gz\norg,iana)/domains/idn-tables 20140126201127 http://www.iana.org/domains/idn-tables text/html 200 HNCUFTJMOQOGAEY6T56KVC3T7TVLKGEW - - 8118 715878 iana.warc.gz\norg,iana)/domains/int 20140126201239 http://www.iana.org/domains/int text/html 200 X32BBNNORV4SPEHTQF5KI5NFHSKTZK6Q - - 2482 746788 iana.warc.gz\norg,iana)/domains/reserved 20140126201054 http://www.iana.org/domains/reserved text/html 200 R5AAEQX5XY5X5DG66B23ODN5DUBWRA27 - - 3573 701457 iana.warc.gz\norg,iana)/domains/root 20140126200912 http://www.iana.org/domains/root text/html 200 YWA2R6UVWCYNHBZJKBTPYPZ5CJWKGGUX - - 2691 657746 iana.warc.gz\norg,iana)/domains/root/db 20140126200927 http://www.iana.org/domains/root/db/ text/html 302 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ - - 446 671278 iana.warc.gz\norg,iana)/domains/root/db 20140126200928 http://www.iana.org/domains/root/db text/html 200 DHXA725IW5VJJFRTWBQT6BEZKRE7H57S - - 18365 672225 iana.warc.gz\norg,iana)/domains/root/servers 20140126201227 http://www.iana.org/domains/root/servers text/html 200 AFW34N3S4NK2RJ6QWMVPB5E2AIUETAHU - - 3137 733840 iana.warc.gz\n", ""},
	{"cdxops.py: Filter cdx (regex)", "http://iana.org/domains", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"matchType": "prefix"}, []string{"=mimetype:text/html"}, "org,iana)/domains 20140126200825 http://www.iana.org/domains text/html 200 7UPSCLNWNZP33LGW6OJGSF2Y4CDG4ES7 - - 2912 610534 iana.warc.gz\norg,iana)/domains/arpa 20140126201248 http://www.iana.org/domains/arpa text/html 200 QOFZZRN6JIKAL2JRL6ZC2VVG42SPKGHT - - 2939 759039 iana.warc.gz\norg,iana)/domains/idn-tables 20140126201127 http://www.iana.org/domains/idn-tables text/html 200 HNCUFTJMOQOGAEY6T56KVC3T7TVLKGEW - - 8118 715878 iana.warc.gz\norg,iana)/domains/int 20140126201239 http://www.iana.org/domains/int text/html 200 X32BBNNORV4SPEHTQF5KI5NFHSKTZK6Q - - 2482 746788 iana.warc.gz\norg,iana)/domains/reserved 20140126201054 http://www.iana.org/domains/reserved text/html 200 R5AAEQX5XY5X5DG66B23ODN5DUBWRA27 - - 3573 701457 iana.warc.gz\norg,iana)/domains/root 20140126200912 http://www.iana.org/domains/root text/html 200 YWA2R6UVWCYNHBZJKBTPYPZ5CJWKGGUX - - 2691 657746 iana.warc.gz\norg,iana)/domains/root/db 20140126200927 http://www.iana.org/domains/root/db/ text/html 302 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ - - 446 671278 iana.warc.gz\norg,iana)/domains/root/db 20140126200928 http://www.iana.org/domains/root/db text/html 200 DHXA725IW5VJJFRTWBQT6BEZKRE7H57S - - 18365 672225 iana.warc.gz\norg,iana)/domains/root/servers 20140126201227 http://www.iana.org/domains/root/servers text/html 200 AFW34N3S4NK2RJ6QWMVPB5E2AIUETAHU - - 3137 733840 iana.warc.gz\n", ""},
	{"cdxops.py: Filter cdx (regex)", "http://iana.org/_css/2013.1/screen.css", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{}, []string{"statuscode:200"}, "org,iana)/_css/2013.1/screen.css 20140126200625 http://www.iana.org/_css/2013.1/screen.css text/css 200 BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 8754 41238 iana.warc.gz\n", ""},
	{"cdxops.py: Filter Alt field name", "http://iana.org/_css/2013.1/screen.css", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{}, []string{"status:200"}, "org,iana)/_css/2013.1/screen.css 20140126200625 http://www.iana.org/_css/2013.1/screen.css text/css 200 BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 8754 41238 iana.warc.gz\n", ""},
	{"cdxops.py: Filter -- no field specified, check whether filter query contained in entire line", "http://iana.org/_css/2013.1/screen.css", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{}, []string{"screen.css 20140126200625"}, "org,iana)/_css/2013.1/screen.css 20140126200625 http://www.iana.org/_css/2013.1/screen.css text/css 200 BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 8754 41238 iana.warc.gz\n", ""},
	{"cdxops.py: Filter -- no such field, no matches", "http://iana.org/_css/2013.1/screen.css", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{}, []string{"blah:200"}, "", ""},
	{"cdxops.py: Filter exact -- (* prefix)", "http://example.com*", []srcSpec{{"dir", "CDX/"}}, map[string]string{}, []string{"=urlkey:com,example)/?example=1"}, "com,example)/?example=1 20140103030321 http://example.com?example=1 text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1043 333 example.warc.gz\ncom,example)/?example=1 20140103030341 http://example.com?example=1 warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 553 1864 example.warc.gz\n", ""},
	{"cdxops.py: Filter exact invert", "http://example.com", []srcSpec{{"dir", "CDX/"}}, map[string]string{"matchType": "prefix"}, []string{"!=urlkey:com,example)/?example=1", "!=urlkey:com,example)/?example=2", "!=urlkey:com,example)/?example=3"}, "com,example)/ 20130729195151 http://test@example.com/ warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 591 355 example-url-agnostic-revisit.warc.gz\ncom,example)/ 20140127171200 http://example.com text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1046 334 dupes.warc.gz\ncom,example)/ 20140127171251 http://example.com warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 553 11875 dupes.warc.gz\n", ""},
	{"cdxops.py: Filter contains", "http://example.com", []srcSpec{{"dir", "CDX/"}}, map[string]string{"matchType": "prefix"}, []string{"urlkey:example=1"}, "com,example)/?example=1 20140103030321 http://example.com?example=1 text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1043 333 example.warc.gz\ncom,example)/?example=1 20140103030341 http://example.com?example=1 warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 553 1864 example.warc.gz\n", ""},
	{"cdxops.py: Filter contains invert", "http://example.com", []srcSpec{{"dir", "CDX/"}}, map[string]string{"matchType": "prefix"}, []string{"!urlkey:example="}, "com,example)/ 20130729195151 http://test@example.com/ warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 591 355 example-url-agnostic-revisit.warc.gz\ncom,example)/ 20140127171200 http://example.com text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1046 334 dupes.warc.gz\ncom,example)/ 20140127171251 http://example.com warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 553 11875 dupes.warc.gz\n", ""},
	{"cdxops.py: Filter regex", "http://example.com", []srcSpec{{"dir", "CDX/"}}, map[string]string{"matchType": "prefix"}, []string{"~urlkey:.*example=1$"}, "com,example)/?example=1 20140103030321 http://example.com?example=1 text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1043 333 example.warc.gz\ncom,example)/?example=1 20140103030341 http://example.com?example=1 warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 553 1864 example.warc.gz\n", ""},
	{"cdxops.py: Filter regex invert", "http://example.com", []srcSpec{{"dir", "CDX/"}}, map[string]string{"matchType": "prefix"}, []string{"!~urlkey:.*example=[0-9]$"}, "com,example)/ 20130729195151 http://test@example.com/ warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 591 355 example-url-agnostic-revisit.warc.gz\ncom,example)/ 20140127171200 http://example.com text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1046 334 dupes.warc.gz\ncom,example)/ 20140127171251 http://example.com warc/revisit - B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 553 11875 dupes.warc.gz\n", ""},
	{"cdxops.py: unresolved revisits, different statuscode results in an extra repeat", "http://iana.org/_css/2013.1/screen.css", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"collapseTime": "11"}, []string{}, "org,iana)/_css/2013.1/screen.css 20140126200625 http://www.iana.org/_css/2013.1/screen.css text/css 200 BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 8754 41238 iana.warc.gz\norg,iana)/_css/2013.1/screen.css 20140126200653 http://www.iana.org/_css/2013.1/screen.css warc/revisit - BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 533 328367 iana.warc.gz\norg,iana)/_css/2013.1/screen.css 20140126201054 http://www.iana.org/_css/2013.1/screen.css warc/revisit - BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 543 706476 iana.warc.gz\n", ""},
	{"cdxops.py: resolved revisits", "http://iana.org/_css/2013.1/screen.css", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"collapseTime": "11", "resolveRevisits": "True"}, []string{}, "org,iana)/_css/2013.1/screen.css 20140126200625 http://www.iana.org/_css/2013.1/screen.css text/css 200 BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 8754 41238 iana.warc.gz - - -\norg,iana)/_css/2013.1/screen.css 20140126201054 http://www.iana.org/_css/2013.1/screen.css text/css 200 BUAEPXZNN44AIX3NLXON4QDV6OY2H5QD - - 543 706476 iana.warc.gz 8754 41238 iana.warc.gz\n", ""},
	{"cdxops.py: Sort by closest timestamp + field select output", "http://iana.org/_css/2013.1/fonts/opensans-bold.ttf", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"closest": "20140126200826", "fields": "timestamp", "limit": "10"}, []string{}, "20140126200826\n20140126200816\n20140126200805\n20140126200912\n20140126200738\n20140126200930\n20140126200718\n20140126200706\n20140126200654\n20140126200625\n", ""},
	{"cdxops.py: if it is, this test will reflect the change", "http://iana.org/_css/2013.1/fonts/opensans-bold.ttf", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"closest": "20140126200826", "fields": "timestamp", "limit": "3", "reverse": "True"}, []string{}, "20140126200826\n20140126200816\n20140126200805\n", ""},
	{"cdxops.py: if it is, this test will reflect the change", "http://iana.org/dnssec", []srcSpec{{"dupes", "CDX/dupes.cdx"}, {"iana", "CDX/iana.cdx"}}, map[string]string{"closest": "20140126201306", "resolveRevisits": "True"}, []string{}, "org,iana)/dnssec 20140126201306 http://www.iana.org/dnssec text/html 302 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ - - 442 772827 iana.warc.gz - - -\norg,iana)/dnssec 20140126201307 https://www.iana.org/dnssec text/html 200 PHLRSX73EV3WSZRFXMWDO6BRKTVUSASI - - 2278 773766 iana.warc.gz - - -\n", ""},
	{"cdxops.py: if it is, this test will reflect the change", "http://iana.org/dnssec", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"closest": "20140126201307", "resolveRevisits": "True"}, []string{}, "org,iana)/dnssec 20140126201307 https://www.iana.org/dnssec text/html 200 PHLRSX73EV3WSZRFXMWDO6BRKTVUSASI - - 2278 773766 iana.warc.gz - - -\norg,iana)/dnssec 20140126201306 http://www.iana.org/dnssec text/html 302 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ - - 442 772827 iana.warc.gz - - -\n", ""},
	{"cdxops.py: equal dist prefer earlier", "http://iana.org/_css/2013.1/fonts/opensans-bold.ttf", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"closest": "20140126200700", "limit": "2", "resolveRevisits": "True"}, []string{}, "org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200654 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf application/octet-stream 200 YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 548 482544 iana.warc.gz 117166 198285 iana.warc.gz\norg,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200706 http://www.iana.org/_css/2013.1/fonts/OpenSans-Bold.ttf application/octet-stream 200 YFUR5ALIWJMWV6FAAFRLVRQNXZQF5HRW - - 552 495230 iana.warc.gz 117166 198285 iana.warc.gz\n", ""},
	{"cdxops.py: equal dist prefer earlier", "http://iana.org/_css/2013.1/fonts/opensans-bold.ttf", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"closest": "20140126200659", "fields": "timestamp", "limit": "2", "resolveRevisits": "True"}, []string{}, "20140126200654\n20140126200706\n", ""},
	{"cdxops.py: equal dist prefer earlier", "http://iana.org/_css/2013.1/fonts/opensans-bold.ttf", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"closest": "20140126200701", "fields": "timestamp", "limit": "2", "resolveRevisits": "True"}, []string{}, "20140126200706\n20140126200654\n", ""},
	{"cdxops.py: Resolve Revisits", "http://iana.org/_css/2013.1/fonts/inconsolata.otf", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"resolveRevisits": "True"}, []string{}, "org,iana)/_css/2013.1/fonts/inconsolata.otf 20140126200826 http://www.iana.org/_css/2013.1/fonts/Inconsolata.otf application/octet-stream 200 LNMEDYOENSOEI5VPADCKL3CB6N3GWXPR - - 34054 620049 iana.warc.gz - - -\norg,iana)/_css/2013.1/fonts/inconsolata.otf 20140126200912 http://www.iana.org/_css/2013.1/fonts/Inconsolata.otf application/octet-stream 200 LNMEDYOENSOEI5VPADCKL3CB6N3GWXPR - - 546 667073 iana.warc.gz 34054 620049 iana.warc.gz\norg,iana)/_css/2013.1/fonts/inconsolata.otf 20140126200930 http://www.iana.org/_css/2013.1/fonts/Inconsolata.otf application/octet-stream 200 LNMEDYOENSOEI5VPADCKL3CB6N3GWXPR - - 534 697255 iana.warc.gz 34054 620049 iana.warc.gz\norg,iana)/_css/2013.1/fonts/inconsolata.otf 20140126201055 http://www.iana.org/_css/2013.1/fonts/Inconsolata.otf application/octet-stream 200 LNMEDYOENSOEI5VPADCKL3CB6N3GWXPR - - 547 714833 iana.warc.gz 34054 620049 iana.warc.gz\norg,iana)/_css/2013.1/fonts/inconsolata.otf 20140126201249 http://www.iana.org/_css/2013.1/fonts/Inconsolata.otf application/octet-stream 200 LNMEDYOENSOEI5VPADCKL3CB6N3GWXPR - - 551 768625 iana.warc.gz 34054 620049 iana.warc.gz\n", ""},
	{"cdxops.py: Resolve Revisits", "http://iana.org/domains/root/db", []srcSpec{{"iana", "CDX/iana.cdx"}}, map[string]string{"resolveRevisits": "True"}, []string{}, "org,iana)/domains/root/db 20140126200927 http://www.iana.org/domains/root/db/ text/html 302 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ - - 446 671278 iana.warc.gz - - -\norg,iana)/domains/root/db 20140126200928 http://www.iana.org/domains/root/db text/html 200 DHXA725IW5VJJFRTWBQT6BEZKRE7H57S - - 18365 672225 iana.warc.gz - - -\n", ""},
	{"zipnum.py: ", "http://iana.org", []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}, map[string]string{}, []string{}, "org,iana)/ 20140126200624 http://www.iana.org/ text/html 200 OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB - - 2258 334 iana.warc.gz\norg,iana)/ 20140127171238 http://iana.org unk 302 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ - - 343 1858 dupes.warc.gz\norg,iana)/ 20140127171238 http://www.iana.org/ warc/revisit - OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB - - 536 2678 dupes.warc.gz\n", ""},
	{"zipnum.py: test idx index (tabs replacad with 4 spaces)", "http://iana.org/domains/", []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}, map[string]string{"matchType": "prefix", "showPagedIndex": "True"}, []string{}, "org,iana)/dnssec 20140126201307\tzipnum\t8517\t373\t35\norg,iana)/domains/int 20140126201239\tzipnum\t8890\t355\t36\norg,iana)/domains/root/servers 20140126201227\tzipnum\t9245\t386\t37\n", ""},
	{"zipnum.py: test idx index (tabs replacad with 4 spaces)", "http://iana.org/domains/*", []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}, map[string]string{}, []string{}, "org,iana)/domains/arpa 20140126201248 http://www.iana.org/domains/arpa text/html 200 QOFZZRN6JIKAL2JRL6ZC2VVG42SPKGHT - - 2939 759039 iana.warc.gz\norg,iana)/domains/example 20140128051539 http://www.iana.org/domains/example text/html 302 JZ622UA23G5ZU6Y3XAKH4LINONUEICEG - - 577 2907 example.warc.gz\norg,iana)/domains/idn-tables 20140126201127 http://www.iana.org/domains/idn-tables text/html 200 HNCUFTJMOQOGAEY6T56KVC3T7TVLKGEW - - 8118 715878 iana.warc.gz\norg,iana)/domains/int 20140126201239 http://www.iana.org/domains/int text/html 200 X32BBNNORV4SPEHTQF5KI5NFHSKTZK6Q - - 2482 746788 iana.warc.gz\norg,iana)/domains/reserved 20140126201054 http://www.iana.org/domains/reserved text/html 200 R5AAEQX5XY5X5DG66B23ODN5DUBWRA27 - - 3573 701457 iana.warc.gz\norg,iana)/domains/root 20140126200912 http://www.iana.org/domains/root text/html 200 YWA2R6UVWCYNHBZJKBTPYPZ5CJWKGGUX - - 2691 657746 iana.warc.gz\norg,iana)/domains/root/db 20140126200927 http://www.iana.org/domains/root/db/ text/html 302 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ - - 446 671278 iana.warc.gz\norg,iana)/domains/root/db 20140126200928 http://www.iana.org/domains/root/db text/html 200 DHXA725IW5VJJFRTWBQT6BEZKRE7H57S - - 18365 672225 iana.warc.gz\norg,iana)/domains/root/servers 20140126201227 http://www.iana.org/domains/root/servers text/html 200 AFW34N3S4NK2RJ6QWMVPB5E2AIUETAHU - - 3137 733840 iana.warc.gz\n", ""},
	{"zipnum.py: first page", "http://iana.org/domains/", []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}, map[string]string{"matchType": "domain", "page": "0", "pageSize": "4", "showPagedIndex": "True"}, []string{}, "com,example)/ 20140127171200\tzipnum\t0\t275\t1\norg,iana)/ 20140127171238\tzipnum\t275\t328\t2\norg,iana)/_css/2013.1/fonts/inconsolata.otf 20140126201055\tzipnum\t603\t312\t3\norg,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200718\tzipnum\t915\t235\t4\n", ""},
	{"zipnum.py: first page -- simplified query", "*.iana.org/path_part_ignored/", []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}, map[string]string{"pageSize": "4", "showPagedIndex": "True"}, []string{}, "com,example)/ 20140127171200\tzipnum\t0\t275\t1\norg,iana)/ 20140127171238\tzipnum\t275\t328\t2\norg,iana)/_css/2013.1/fonts/inconsolata.otf 20140126201055\tzipnum\t603\t312\t3\norg,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200718\tzipnum\t915\t235\t4\n", ""},
	{"zipnum.py: next page + json", "http://iana.org/domains/", []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}, map[string]string{"matchType": "domain", "output": "json", "page": "1", "pageSize": "4", "showPagedIndex": "True"}, []string{}, "{\"urlkey\": \"org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126200912\", \"part\": \"zipnum\", \"offset\": 1150, \"length\": 235, \"lineno\": 5}\n{\"urlkey\": \"org,iana)/_css/2013.1/fonts/opensans-bold.ttf 20140126201240\", \"part\": \"zipnum\", \"offset\": 1385, \"length\": 307, \"lineno\": 6}\n{\"urlkey\": \"org,iana)/_css/2013.1/fonts/opensans-regular.ttf 20140126200654\", \"part\": \"zipnum\", \"offset\": 1692, \"length\": 235, \"lineno\": 7}\n{\"urlkey\": \"org,iana)/_css/2013.1/fonts/opensans-regular.ttf 20140126200816\", \"part\": \"zipnum\", \"offset\": 1927, \"length\": 231, \"lineno\": 8}\n", ""},
	{"zipnum.py: last page", "http://iana.org/domains/", []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}, map[string]string{"matchType": "domain", "page": "9", "pageSize": "4", "showPagedIndex": "True"}, []string{}, "org,iana)/domains/root/servers 20140126201227\tzipnum\t9245\t386\t37\norg,iana)/time-zones 20140126200737\tzipnum\t9631\t166\t38\n", ""},
	{"zipnum.py: last page cdx", "http://iana.org/domains/", []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}, map[string]string{"matchType": "domain", "page": "9", "pageSize": "4"}, []string{}, "org,iana)/domains/root/servers 20140126201227 http://www.iana.org/domains/root/servers text/html 200 AFW34N3S4NK2RJ6QWMVPB5E2AIUETAHU - - 3137 733840 iana.warc.gz\norg,iana)/numbers 20140126200651 http://www.iana.org/numbers text/html 200 HWT5UZKURYLW5QNWVZCWFCANGEMU7XWK - - 3498 321385 iana.warc.gz\norg,iana)/performance/ietf-draft-status 20140126200815 http://www.iana.org/performance/ietf-draft-status text/html 200 T5IQTX6DWV5KABGH454CYEDWKRI5Y23E - - 2940 597667 iana.warc.gz\norg,iana)/performance/ietf-statistics 20140126200804 http://www.iana.org/performance/ietf-statistics text/html 200 XOFML5WNBQMTSULLIIPLSP6U5MX33HN6 - - 3712 582987 iana.warc.gz\norg,iana)/protocols 20140126200715 http://www.iana.org/protocols text/html 200 IRUJZEUAXOUUG224ZMI4VWTUPJX6XJTT - - 63663 496277 iana.warc.gz\norg,iana)/time-zones 20140126200737 http://www.iana.org/time-zones text/html 200 4Z27MYWOSXY2XDRAJRW7WRMT56LXDD4R - - 2449 569675 iana.warc.gz\norg,iana)/time-zones/x 20140126200737 http://www.iana.org/time-zones/X text/html 200 4Z27MYWOSXY2XDRAJRW7WRMT56LXDD4R - - 2449 569675 iana.warc.gz\norg,iana)/time-zones/y 20140126200737 http://www.iana.org/time-zones/Y text/html 200 4Z27MYWOSXY2XDRAJRW7WRMT56LXDD4R - - 2449 569675 iana.warc.gz\n", ""},
	{"zipnum.py: last page reverse CDX", "http://iana.org/domains/", []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}, map[string]string{"matchType": "domain", "page": "9", "pageSize": "4", "reverse": "True"}, []string{}, "org,iana)/time-zones/y 20140126200737 http://www.iana.org/time-zones/Y text/html 200 4Z27MYWOSXY2XDRAJRW7WRMT56LXDD4R - - 2449 569675 iana.warc.gz\norg,iana)/time-zones/x 20140126200737 http://www.iana.org/time-zones/X text/html 200 4Z27MYWOSXY2XDRAJRW7WRMT56LXDD4R - - 2449 569675 iana.warc.gz\norg,iana)/time-zones 20140126200737 http://www.iana.org/time-zones text/html 200 4Z27MYWOSXY2XDRAJRW7WRMT56LXDD4R - - 2449 569675 iana.warc.gz\norg,iana)/protocols 20140126200715 http://www.iana.org/protocols text/html 200 IRUJZEUAXOUUG224ZMI4VWTUPJX6XJTT - - 63663 496277 iana.warc.gz\norg,iana)/performance/ietf-statistics 20140126200804 http://www.iana.org/performance/ietf-statistics text/html 200 XOFML5WNBQMTSULLIIPLSP6U5MX33HN6 - - 3712 582987 iana.warc.gz\norg,iana)/performance/ietf-draft-status 20140126200815 http://www.iana.org/performance/ietf-draft-status text/html 200 T5IQTX6DWV5KABGH454CYEDWKRI5Y23E - - 2940 597667 iana.warc.gz\norg,iana)/numbers 20140126200651 http://www.iana.org/numbers text/html 200 HWT5UZKURYLW5QNWVZCWFCANGEMU7XWK - - 3498 321385 iana.warc.gz\norg,iana)/domains/root/servers 20140126201227 http://www.iana.org/domains/root/servers text/html 200 AFW34N3S4NK2RJ6QWMVPB5E2AIUETAHU - - 3137 733840 iana.warc.gz\n", ""},
	{"zipnum.py: last url prefix", "http://iana.org/time-zones*", []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}, map[string]string{}, []string{}, "org,iana)/time-zones 20140126200737 http://www.iana.org/time-zones text/html 200 4Z27MYWOSXY2XDRAJRW7WRMT56LXDD4R - - 2449 569675 iana.warc.gz\norg,iana)/time-zones/x 20140126200737 http://www.iana.org/time-zones/X text/html 200 4Z27MYWOSXY2XDRAJRW7WRMT56LXDD4R - - 2449 569675 iana.warc.gz\norg,iana)/time-zones/y 20140126200737 http://www.iana.org/time-zones/Y text/html 200 4Z27MYWOSXY2XDRAJRW7WRMT56LXDD4R - - 2449 569675 iana.warc.gz\n", ""},
	{"zipnum.py: last url prefix w/ slash", "http://iana.org/time-zones/*", []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}, map[string]string{}, []string{}, "org,iana)/time-zones/x 20140126200737 http://www.iana.org/time-zones/X text/html 200 4Z27MYWOSXY2XDRAJRW7WRMT56LXDD4R - - 2449 569675 iana.warc.gz\norg,iana)/time-zones/y 20140126200737 http://www.iana.org/time-zones/Y text/html 200 4Z27MYWOSXY2XDRAJRW7WRMT56LXDD4R - - 2449 569675 iana.warc.gz\n", ""},
	{"zipnum.py: last url exact", "http://iana.org/time-zones/Y", []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}, map[string]string{}, []string{}, "org,iana)/time-zones/y 20140126200737 http://www.iana.org/time-zones/Y text/html 200 4Z27MYWOSXY2XDRAJRW7WRMT56LXDD4R - - 2449 569675 iana.warc.gz\n", ""},
	{"zipnum.py: invalid page", "http://iana.org/domains/", []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}, map[string]string{"matchType": "domain", "page": "10", "pageSize": "4", "showPagedIndex": "True"}, []string{}, "", "Page 10 invalid: First Page is 0, Last Page is 9"},
	{"zipnum.py: not found", "http://aaa.aaa/", []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}, map[string]string{"matchType": "exact", "showPagedIndex": "True"}, []string{}, "", ""},
	{"zipnum.py: not found", "http://aaa.aaa/", []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}, map[string]string{"matchType": "domain", "showPagedIndex": "True"}, []string{}, "", ""},
	{"zipnum.py: list last index line, as we don't know if there are any captures at end", "http://aaa.zz/", []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}, map[string]string{"matchType": "domain", "showPagedIndex": "True"}, []string{}, "org,iana)/time-zones 20140126200737\tzipnum\t9631\t166\t38\n", ""},
	{"zipnum.py: read cdx to find no captures", "http://aaa.zz/", []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}, map[string]string{"matchType": "domain"}, []string{}, "", ""},
	{"zipnum.py: Invalid .idx filesor or missing loc", "http://example.com/", []srcSpec{{"zip", "ZIP/zipnum-bad.idx"}}, map[string]string{"matchType": "exact"}, []string{}, "", "No Locations Found for: foo"},
	{"zipnum.py: Invalid .idx filesor or missing loc", "http://example.zz/x", []srcSpec{{"zip", "ZIP/zipnum-bad.idx"}}, map[string]string{"matchType": "exact"}, []string{}, "", "No Locations Found for: foo2"},
}

func TestPywbDoctests(t *testing.T) {
	for _, tc := range pywbCases {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := opsRun(t, tc.sources, tc.url, tc.params, tc.filters)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s %v: error %v, want %q", tc.url, tc.params, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s %v: %v", tc.url, tc.params, err)
			}
			if got := opsText(objs, tc.params); got != tc.want {
				t.Errorf("%s %v %q:\ngot:\n%s\nwant:\n%s", tc.url, tc.params, tc.filters, got, tc.want)
			}
		})
	}
}

// TestPywbZipnumPages: test_zipnum.py's page counts (showNumPages) and
// bad page parameters.
func TestPywbZipnumPages(t *testing.T) {
	zip := []srcSpec{{"zip", "ZIP/zipnum-sample.idx"}}
	for _, tc := range []struct {
		name, url string
		params    map[string]string
		filters   []string
		want      string
	}{
		{"test_blocks_def_page_size", "http://iana.org/domains/example", map[string]string{"matchType": "exact"}, nil, `{"pages": 1, "pageSize": 10, "blocks": 1}`},
		{"test_blocks_def_size_2", "http://iana.org/domains/", map[string]string{"matchType": "domain"}, nil, `{"pages": 4, "pageSize": 10, "blocks": 38}`},
		{"test_blocks_set_page_size", "http://iana.org/domains/", map[string]string{"matchType": "domain", "pageSize": "4"}, nil, `{"pages": 10, "pageSize": 4, "blocks": 38}`},
		{"test_blocks_alt_q", "*.iana.org", map[string]string{"pageSize": "4"}, nil, `{"pages": 10, "pageSize": 4, "blocks": 38}`},
		{"test_blocks_secondary_match", "iana.org/domains/int/blah", map[string]string{"pageSize": "4"}, nil, `{"pages": 0, "pageSize": 4, "blocks": 0}`},
		{"test_blocks_no_match", "*.foo.bar", nil, nil, `{"pages": 0, "pageSize": 10, "blocks": 0}`},
		{"test_blocks_zero_pages", "http://aaa.zz/", map[string]string{"matchType": "domain"}, nil, `{"pages": 0, "pageSize": 10, "blocks": 0}`},
		{"test_blocks_ignore_filter_params", "*.iana.org", map[string]string{"pageSize": "4"}, []string{"=status:200"}, `{"pages": 10, "pageSize": 4, "blocks": 38}`},
		{"test_blocks_ignore_timestamp_params", "*.iana.org", map[string]string{"pageSize": "4", "closest": "20140126000000"}, nil, `{"pages": 10, "pageSize": 4, "blocks": 38}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := map[string]string{"showNumPages": "True"}
			for k, v := range tc.params {
				p[k] = v
			}
			objs, err := opsRun(t, zip, tc.url, p, tc.filters)
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) != 1 {
				t.Fatalf("%d results, want 1", len(objs))
			}
			// pywb compares dicts: the same members in any order
			var got, want map[string]any
			json.Unmarshal(objs[0].toJSON(nil, nil), &got)
			json.Unmarshal([]byte(tc.want), &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s", objs[0].toJSON(nil, nil))
			}
		})
	}
	// test_invalid_int_param
	for _, p := range []map[string]string{{"pageSize": "not-an-integer"}, {"page": "not-an-integer"}} {
		p["matchType"] = "exact"
		_, err := opsRun(t, zip, "http://iana.org/domains/example", p, nil)
		if _, ok := err.(*cdxError); !ok {
			t.Errorf("%v: error %v, want a CDXException", p, err)
		}
	}
	// test_err_file_not_found: a part whose only location does not exist
	if _, err := opsRun(t, []srcSpec{{"zip", "ZIP/zipnum-bad.idx"}}, "http://iana.org/x", map[string]string{"matchType": "exact"}, nil); err == nil {
		t.Error("zipnum-bad.idx, part bar: no error")
	}
}

// TestPywbCdxjResolveRevisit: test_cdxops.py's test_cdxj_resolve_revisit
// and _2 (CDXJ lines with few fields; dicts compared).
func TestPywbCdxjResolveRevisit(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"CDXJ/example.cdxj", []string{
			`{"urlkey": "com,example)/?example=1", "timestamp": "20140103030321", "url": "http://example.com?example=1", "length": "1043", "filename": "example.warc.gz", "digest": "B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A", "offset": "333", "orig.length": "-", "orig.offset": "-", "orig.filename": "-"}`,
			`{"urlkey": "com,example)/?example=1", "timestamp": "20140103030341", "url": "http://example.com?example=1", "filename": "example.warc.gz", "length": "553", "mime": "", "offset": "1864", "digest": "B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A", "orig.length": "1043", "orig.offset": "333", "orig.filename": "example.warc.gz"}`}},
		{"CDXJ/example-no-digest.cdxj", []string{
			`{"urlkey": "com,example)/?example=1", "timestamp": "20140103030321", "url": "http://example.com?example=1", "length": "1043", "filename": "example.warc.gz", "offset": "333", "orig.length": "-", "orig.offset": "-", "orig.filename": "-"}`,
			`{"urlkey": "com,example)/?example=1", "timestamp": "20140103030341", "url": "http://example.com?example=1", "length": "553", "filename": "example.warc.gz", "mime": "warc/revisit", "offset": "1864", "orig.length": "-", "orig.offset": "-", "orig.filename": "-"}`}},
	} {
		sa := sampleArchive(t)
		p := filepath.Join(sa, "cdxj", strings.TrimPrefix(tc.src, "CDXJ/"))
		objs, err := opsRun(t, []srcSpec{{"example", p}}, "http://example.com/?example=1", map[string]string{"resolveRevisits": "True"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(objs) != len(tc.want) {
			t.Fatalf("%s: %d results, want %d", tc.src, len(objs), len(tc.want))
		}
		for i, c := range objs {
			var got, want map[string]any
			json.Unmarshal(c.toJSON(nil, nil), &got)
			json.Unmarshal([]byte(tc.want[i]), &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s #%d: %s", tc.src, i, c.toJSON(nil, nil))
			}
		}
	}
}

// TestPywbCDXServerApp: tests/test_cdx_server_app.py, asked of /pywb/cdx
// (the sample archive's CDX folder, as config_test.yaml's pywb
// collection).
func TestPywbCDXServerApp(t *testing.T) {
	ts := sampleServer(t)
	q := func(u string, params url.Values) answer {
		params.Set("url", u)
		return fetch(t, ts.URL+"/pywb/cdx?"+params.Encode())
	}
	lines := func(a answer) []string {
		if a.body == "" {
			return nil
		}
		return strings.Split(strings.TrimSuffix(a.body, "\n"), "\n")
	}
	obj := func(t *testing.T, l string) *cdxObj {
		c, err := parseCDXObj(l)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	t.Run("test_exact_url", func(t *testing.T) {
		a := q("http://www.iana.org/", url.Values{})
		if a.code != 200 || len(lines(a)) != 3 {
			t.Errorf("%d %q", a.code, a.body)
		}
	})
	t.Run("test_exact_url_json", func(t *testing.T) {
		a := q("http://www.iana.org/", url.Values{"output": {"json"}})
		for _, l := range lines(a) {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Error(err)
			}
		}
		if a.code != 200 || len(lines(a)) != 3 {
			t.Errorf("%d %q", a.code, a.body)
		}
	})
	t.Run("test_exact_url_plain_text", func(t *testing.T) {
		a := q("http://www.iana.org/", url.Values{"output": {"text"}})
		if a.code != 200 || a.ct != "text/plain" || strings.Contains(a.body, "{") || len(lines(a)) != 3 {
			t.Errorf("%d %s %q", a.code, a.ct, a.body)
		}
	})
	t.Run("test_prefix_match", func(t *testing.T) {
		a := q("http://www.iana.org/", url.Values{"matchType": {"prefix"}})
		sub := 0
		for _, l := range lines(a) {
			if f := strings.Split(l, " "); len(f[0]) > len("org,iana)/") {
				sub++
			}
		}
		if a.code != 200 || sub == 0 {
			t.Errorf("%d, %d sub-URLs", a.code, sub)
		}
	})
	t.Run("test_filters_1", func(t *testing.T) {
		a := q("http://www.iana.org/_css/2013.1/screen.css", url.Values{"filter": {"mime:warc/revisit", "filename:dupes.warc.gz"}})
		if a.code != 200 || a.ct != "text/x-cdxj" || len(lines(a)) == 0 {
			t.Fatalf("%d %s %q", a.code, a.ct, a.body)
		}
		for _, l := range lines(a) {
			c := obj(t, l)
			if c.gets("urlkey") != "org,iana)/_css/2013.1/screen.css" || c.gets("timestamp") != "20140127171239" || c.gets("mime") != "warc/revisit" || c.gets("filename") != "dupes.warc.gz" {
				t.Errorf("%s", l)
			}
		}
	})
	t.Run("test_filters_2_no_fuzzy_no_match", func(t *testing.T) {
		a := q("http://www.iana.org/_css/2013.1/screen.css", url.Values{"filter": {"!mime:warc/revisit", "filename:dupes.warc.gz"}, "allowFuzzy": {"false"}})
		if a.code != 200 || a.ct != "text/x-cdxj" || len(lines(a)) != 0 {
			t.Errorf("%d %s %q", a.code, a.ct, a.body)
		}
	})
	t.Run("test_filters_3", func(t *testing.T) {
		a := q("http://www.iana.org/_css/2013.1/screen.css", url.Values{"filter": {"!mime:warc/revisit", "!filename:dupes.warc.gz"}})
		if a.code != 200 || a.ct != "text/x-cdxj" || len(lines(a)) != 1 {
			t.Fatalf("%d %s %q", a.code, a.ct, a.body)
		}
		c := obj(t, lines(a)[0])
		if c.gets("urlkey") != "org,iana)/_css/2013.1/screen.css" || c.gets("timestamp") != "20140126200625" || c.gets("mime") != "text/css" || c.gets("filename") != "iana.warc.gz" {
			t.Errorf("%s", lines(a)[0])
		}
	})
	t.Run("test_limit", func(t *testing.T) {
		a := q("http://www.iana.org/_css/2013.1/screen.css", url.Values{"limit": {"1"}})
		if a.code != 200 || a.ct != "text/x-cdxj" || len(lines(a)) != 1 {
			t.Fatalf("%d %s %q", a.code, a.ct, a.body)
		}
		if c := obj(t, lines(a)[0]); c.gets("timestamp") != "20140126200625" || c.gets("mime") != "text/css" {
			t.Errorf("%s", a.body)
		}
		a = q("http://www.iana.org/_css/2013.1/screen.css", url.Values{"limit": {"1"}, "reverse": {"1"}})
		if a.code != 200 || len(lines(a)) != 1 {
			t.Fatalf("%d %q", a.code, a.body)
		}
		if c := obj(t, lines(a)[0]); c.gets("timestamp") != "20140127171239" || c.gets("mime") != "warc/revisit" {
			t.Errorf("%s", a.body)
		}
	})
	ts14 := regexp.MustCompile(`^\d{14}$`)
	status := regexp.MustCompile(`^(\d{3}|-)`)
	t.Run("test_fields", func(t *testing.T) {
		a := q("http://www.iana.org/_css/2013.1/print.css", url.Values{"fields": {"urlkey,timestamp,status"}})
		for _, l := range lines(a) {
			c := obj(t, l)
			if c.gets("urlkey") != "org,iana)/_css/2013.1/print.css" || !ts14.MatchString(c.gets("timestamp")) || !status.MatchString(c.gets("status")) {
				t.Errorf("%s", l)
			}
		}
		if a.code != 200 || len(lines(a)) == 0 {
			t.Errorf("%d %q", a.code, a.body)
		}
	})
	t.Run("test_fields_json", func(t *testing.T) {
		a := q("http://www.iana.org/_css/2013.1/print.css", url.Values{"fields": {"urlkey,timestamp,status"}, "output": {"json"}})
		for _, l := range lines(a) {
			var m map[string]string
			json.Unmarshal([]byte(l), &m)
			if len(m) != 3 || m["urlkey"] != "org,iana)/_css/2013.1/print.css" || !ts14.MatchString(m["timestamp"]) || !status.MatchString(m["status"]) {
				t.Errorf("%s", l)
			}
		}
	})
	t.Run("test_resolveRevisits", func(t *testing.T) {
		a := q("http://www.iana.org/_css/2013.1/print.css", url.Values{"resolveRevisits": {"true"}})
		if a.code != 200 || a.ct != "text/x-cdxj" {
			t.Fatalf("%d %s", a.code, a.ct)
		}
		originals := map[string]string{}
		for _, l := range lines(a) {
			c := obj(t, l)
			if len(c.keys) != 16 {
				t.Errorf("%d fields: %s", len(c.keys), l)
			}
			sha := c.gets("digest")
			if c.gets("orig.length") == "-" {
				if c.gets("orig.offset") != "-" || c.gets("orig.filename") != "-" {
					t.Errorf("%s", l)
				}
				originals[sha] = c.gets("length") + " " + c.gets("offset") + " " + c.gets("filename")
			} else if originals[sha] != c.gets("orig.length")+" "+c.gets("orig.offset")+" "+c.gets("orig.filename") {
				t.Errorf("%s: original %q", l, originals[sha])
			}
		}
	})
	t.Run("test_resolveRevisits_orig_fields", func(t *testing.T) {
		a := q("http://www.iana.org/_css/2013.1/print.css", url.Values{"resolveRevisits": {"1"}, "fields": {"urlkey,orig.length,orig.offset,orig.filename"}})
		ls := lines(a)
		if a.code != 200 || a.ct != "text/x-cdxj" || len(ls) < 2 {
			t.Fatalf("%d %s %q", a.code, a.ct, a.body)
		}
		c := obj(t, ls[0])
		if c.gets("orig.offset") != "-" || c.gets("orig.length") != "-" || c.gets("orig.filename") != "-" {
			t.Errorf("%s", ls[0])
		}
		for _, l := range ls[1:] {
			c := obj(t, l)
			if c.gets("orig.offset") == "-" || c.gets("orig.length") == "-" || c.gets("orig.filename") != "iana.warc.gz" {
				t.Errorf("%s", l)
			}
		}
	})
	t.Run("test_collapseTime_resolveRevisits_reverse", func(t *testing.T) {
		a := q("http://www.iana.org/_css/2013.1/print.css", url.Values{"collapseTime": {"11"}, "resolveRevisits": {"true"}, "reverse": {"true"}})
		ls := lines(a)
		if len(ls) != 3 {
			t.Fatalf("%d lines, want 3: %q", len(ls), a.body)
		}
		for i := 0; i+1 < len(ls); i++ {
			if obj(t, ls[i]).gets("timestamp") < obj(t, ls[i+1]).gets("timestamp") {
				t.Errorf("not descending: %q", a.body)
			}
		}
	})
	t.Run("test_error_unknown_output_format", func(t *testing.T) {
		a := q("http://www.iana.org/_css/2013.1/print.css", url.Values{"fields": {"urlkey,timestamp,status"}, "output": {"foo"}})
		if a.code != 400 || a.body != `{"message": "output=foo not supported"}` {
			t.Errorf("%d %q", a.code, a.body)
		}
	})
	t.Run("test_error_unknown_match_type", func(t *testing.T) {
		a := q("http://www.iana.org/_css/2013.1/print.css", url.Values{"fields": {"urlkey,timestamp,status"}, "matchType": {"foo"}})
		if a.code != 400 || a.body != `{"message": "Invalid match_type: foo"}` {
			t.Errorf("%d %q", a.code, a.body)
		}
	})
	// tests/test_memento.py: the CDX lines of test_timemap_cdxj, and the
	// memento lines of test_timemap (its memento_format)
	t.Run("test_memento_timemap_cdxj", func(t *testing.T) {
		a := q("http://example.com?example=1", url.Values{})
		want := `com,example)/?example=1 20140103030321 {"url": "http://example.com?example=1", "mime": "text/html", "status": "200", "digest": "B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A", "redirect": "-", "robotflags": "-", "length": "1043", "offset": "333", "filename": "example.warc.gz", "source": "pywb:example.cdx", "source-coll": "pywb"}
com,example)/?example=1 20140103030341 {"url": "http://example.com?example=1", "mime": "warc/revisit", "status": "-", "digest": "B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A", "redirect": "-", "robotflags": "-", "length": "553", "offset": "1864", "filename": "example.warc.gz", "source": "pywb:example.cdx", "source-coll": "pywb"}
`
		if a.code != 200 || a.ct != "text/x-cdxj" || a.body != want {
			t.Errorf("%d %s\n%s", a.code, a.ct, a.body)
		}
	})
	t.Run("test_memento_timemap_link", func(t *testing.T) {
		const fmod = "mp_"
		a := q("http://example.com?example=1", url.Values{"output": {"link"}, "memento_format": {"http://localhost:80/pywb/{timestamp}" + fmod + "/{url}"}})
		want := fmt.Sprintf(`<http://localhost:80/pywb/20140103030321%[1]s/http://example.com?example=1>; rel="memento"; datetime="Fri, 03 Jan 2014 03:03:21 GMT"; collection="pywb",
<http://localhost:80/pywb/20140103030341%[1]s/http://example.com?example=1>; rel="memento"; datetime="Fri, 03 Jan 2014 03:03:41 GMT"; collection="pywb"
`, fmod)
		if a.code != 200 || a.ct != "application/link-format" || a.body != want {
			t.Errorf("%d %s\n%s", a.code, a.ct, a.body)
		}
		// test_timemap_2: the text split at newlines is 7 strings: three
		// header lines, the mementos, and "" after the last newline, so
		// three captures of http://example.com
		a = q("http://example.com", url.Values{"output": {"link"}})
		if n := len(lines(a)); n != 3 {
			t.Errorf("%d captures of http://example.com, want 3: %q", n, a.body)
		}
	})
}
