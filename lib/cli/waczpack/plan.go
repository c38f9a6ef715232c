package waczpack

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/arcport/arcport/lib/internal/batch"
	"github.com/arcport/arcport/lib/internal/cliutil"
)

// planCommand is `waczpack plan`: the plan of a batch run (docs/batch.md).
func planCommand(stdin io.Reader, stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "balance a list of inputs over K shards by size and pin each input's size and ETag, for --inputs of any batch command",
		UsageText: "waczpack plan --inputs LIST --shard-count K [-o plan.jsonl]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "inputs", Usage: "the inputs: `LIST` (a file, s3://…/list.txt or -; one per line, # comments), or a plan to balance again"},
			&cli.IntFlag{Name: "shard-count", Usage: "balance over `K` shards"},
			&cli.StringFlag{Name: "o", Aliases: []string{"output"}, Usage: "write the plan to `FILE` (s3:// works; default: standard output)"},
			&cli.BoolFlag{Name: "v", Aliases: []string{"verbose"}, Usage: "print the bytes of each shard"},
		},
		Action: func(c *cli.Context) error { return plan(c, stdin, stdout, stderr) },
	}
}

func plan(c *cli.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	if c.String("inputs") == "" {
		return cliutil.Usagef("plan needs --inputs LIST")
	}
	k := c.Int("shard-count")
	if k < 1 {
		return cliutil.Usagef("plan needs --shard-count K (at least 1)")
	}
	if c.NArg() > 0 {
		return cliutil.Usagef("plan takes its inputs from --inputs, not %s", c.Args().First())
	}
	ctx := context.Background()
	st := cliutil.Store()
	l, err := batch.ReadList(ctx, st, c.String("inputs"), stdin)
	if err != nil {
		return planErr(err)
	}
	p, err := batch.Plan(ctx, st, l, k)
	if err != nil {
		return planErr(err)
	}
	var w io.Writer = stdout
	out := c.String("o")
	var o cliutil.Output
	if out != "" && out != "-" {
		if o, err = cliutil.CreateOutput(out); err != nil {
			return planErr(err)
		}
		defer o.Abort()
		w = o
	}
	if err := batch.WritePlan(w, p); err != nil {
		return planErr(err)
	}
	if o != nil {
		if err := o.Commit(); err != nil {
			return planErr(err)
		}
	}
	if c.Bool("v") {
		b := batch.ShardBytes(p)
		var total int64
		for _, n := range b {
			total += n
		}
		fmt.Fprintf(stderr, "waczpack plan: %d inputs, %d bytes, %d shards: %d to %d bytes each\n",
			len(p.Inputs), total, k, slices.Min(b), slices.Max(b))
	}
	return nil
}

// planErr gives a storage failure after its retries exit status 75.
func planErr(err error) error {
	if batch.Classify(err, "") == batch.Transient {
		return &cliutil.ExitError{Code: batch.ExitTransient, Msg: "waczpack plan: " + err.Error()}
	}
	return err
}
