package cliutil

import (
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestReorderArgs(t *testing.T) {
	plain := &cli.App{Flags: []cli.Flag{&cli.StringFlag{Name: "o"}, &cli.BoolFlag{Name: "q"}}}
	cmds := &cli.App{
		Flags: []cli.Flag{&cli.StringFlag{Name: "g"}},
		Commands: []*cli.Command{
			{Name: "create", Flags: []cli.Flag{&cli.StringFlag{Name: "o"}, &cli.StringSliceFlag{Name: "url"}, &cli.BoolFlag{Name: "text"}}},
			{Name: "ls", Flags: []cli.Flag{&cli.BoolFlag{Name: "json"}}},
		},
	}
	for _, tc := range []struct {
		app  *cli.App
		in   string
		want string
	}{
		{plain, "in.arc -o out.warc.gz", "-o out.warc.gz in.arc"},
		{plain, "a -q b -o=x c", "-q -o=x a b c"},
		{plain, "a -- -o b", "a -- -o b"},
		{plain, "- -q", "-q -"},
		{cmds, "create a.warc -o x.wacz --url u1 --text b.warc", "create -o x.wacz --url u1 --text a.warc b.warc"},
		{cmds, "-g v ls f.wacz --json", "-g v ls --json f.wacz"},
		{cmds, "notacommand -x", "-x notacommand"},
	} {
		got := strings.Join(ReorderArgs(tc.app, strings.Fields(tc.in)), " ")
		if got != tc.want {
			t.Errorf("%q: got %q want %q", tc.in, got, tc.want)
		}
	}
	if !reflect.DeepEqual(ReorderArgs(plain, nil), []string(nil)) && len(ReorderArgs(plain, nil)) != 0 {
		t.Error("empty args")
	}
}
