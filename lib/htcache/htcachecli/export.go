package htcachecli

import (
	"errors"

	"github.com/urfave/cli/v2"
)

// exportCommand is `htcache export`; it needs the WARC and ARC writers.
func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "export the cache as WARC (gzip per record) or ARC: a warcinfo record, then one response record per entry",
		ArgsUsage: "DIR|ZIP",
		Flags: []cli.Flag{flagOut, flagQuiet, flagStrict, flagTZ,
			&cli.StringFlag{Name: "format", Value: "warc", Usage: "warc or arc"}},
		Action: func(c *cli.Context) error {
			return errors.New("export: not available yet (waiting for lib/warc writer)")
		},
	}
}
