package waczpack

import (
	"crypto/x509"
	"errors"
	"fmt"
	"io"

	"github.com/arcport/arcport/lib/internal/cliutil"
	"github.com/arcport/arcport/lib/wacz"
	"github.com/urfave/cli/v2"
)

var (
	signKeyFlag   = &cli.StringFlag{Name: "sign-key", Usage: "sign datapackage-digest.json anonymously with this ECDSA P-384 private key (`KEY.pem`)"}
	signURLFlag   = &cli.StringFlag{Name: "sign-url", Usage: "sign with an authsign-compatible signing server (`URL` of its /sign)"}
	signTokenFlag = &cli.StringFlag{Name: "sign-token", Usage: "bearer token for --sign-url (ignored without it)", EnvVars: []string{"WACZ_SIGN_TOKEN"}}
	trustFlag     = &cli.StringFlag{Name: "trust", Usage: "trust the root certificates in `ROOTS.pem` for domain and timestamp signatures (default: the system's)"}
)

func init() {
	for _, f := range []string{"sign-key", "sign-url", "sign-token", "trust"} {
		valueFlags[f] = true
	}
}

// signerFromFlags returns the Signer --sign-key or --sign-url ask for (nil:
// none).
func signerFromFlags(c *cli.Context, software string, stderr io.Writer) (wacz.Signer, error) {
	key, url := c.String("sign-key"), c.String("sign-url")
	switch {
	case key != "" && url != "":
		return nil, cliutil.Usagef("--sign-key and --sign-url exclude each other")
	case key != "":
		b, err := readFlagFile(key)
		if err != nil {
			return nil, err
		}
		k, err := wacz.LoadSigningKey(b)
		if errors.Is(err, wacz.ErrNotP384) {
			if !c.Bool("q") {
				fmt.Fprintf(stderr, "warning: %s: %v\n", key, err)
			}
		} else if err != nil {
			return nil, fmt.Errorf("%s: %v", key, err)
		}
		return &wacz.KeySigner{Key: k, Software: software}, nil
	case url != "":
		return &wacz.URLSigner{URL: url, Token: c.String("sign-token")}, nil
	}
	return nil, nil
}

// reportSignature prints who signed a valid WACZ and when, or fails.
func reportSignature(c *cli.Context, r *wacz.Reader, name string, stdout io.Writer) error {
	var o wacz.VerifyOptions
	if p := c.String("trust"); p != "" {
		b, err := readFlagFile(p)
		if err != nil {
			return err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return cliutil.Usagef("--trust %s: no PEM certificate", p)
		}
		o.Roots, o.TimestampRoots = pool, pool
	}
	si, err := r.Signature(o)
	if err != nil {
		return &cliutil.ExitError{Code: cliutil.ExitFail, Msg: fmt.Sprintf("%s: signature: %v", name, err)}
	}
	if si == nil || c.Bool("q") {
		return nil
	}
	fmt.Fprintf(stdout, "%s: %s\n", name, si)
	for _, w := range si.Warnings {
		fmt.Fprintf(stdout, "%s: warning: %s\n", name, w)
	}
	return nil
}

// readFlagFile reads a small file a flag names (a path, "-" or a URL, as
// --pages).
func readFlagFile(p string) ([]byte, error) {
	f, _, err := cliutil.OpenInput(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 1<<20))
}
