package cdx

import "testing"

// TestTimestampToDatetime: the answers of warcio 1.8.1's
// timeutils.timestamp_to_datetime for the same strings (run by hand:
// scripts/venv/bin/python).
func TestTimestampToDatetime(t *testing.T) {
	for in, want := range map[string]string{
		"20131226095010": "2013-12-26T09:50:10",
		"2014":           "2014-12-31T23:59:59",
		"20140":          "2014-02-28T23:59:59",
		"201402":         "2014-02-28T23:59:59",
		"2014022":        "2014-02-28T23:59:59",
		"20141326":       "2014-12-26T23:59:59",
		"201402300000":   "2014-02-28T00:00:59",
		"99999999999999": "2999-12-31T23:59:59",
		"1800":           "1900-12-31T23:59:59",
		"2014_02":        "2014-12-31T23:59:59",
		"":               "2999-12-31T23:59:59",
	} {
		if got := TimestampToDatetime(in).Format("2006-01-02T15:04:05"); got != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
	}
}

func TestPyInt(t *testing.T) {
	for in, want := range map[string]int64{"12": 12, " -3 ": -3, "+1_000": 1000} {
		if n, ok := PyInt(in); !ok || n != want {
			t.Errorf("%q: %d %v", in, n, ok)
		}
	}
	for _, in := range []string{"", "_1", "1_", "1__0", "x", "1.5", "--1"} {
		if _, ok := PyInt(in); ok {
			t.Errorf("%q: accepted", in)
		}
	}
}
