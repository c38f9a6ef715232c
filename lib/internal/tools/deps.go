//go:build tools

// Package tools pins the project's dependencies so that `go mod tidy`
// keeps them while packages that use them are being written.
package tools

import (
	_ "github.com/google/uuid"
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/temoto/robotstxt"
	_ "github.com/ulikunitz/xz"
	_ "github.com/urfave/cli/v2"
	_ "golang.org/x/net/html"
	_ "golang.org/x/time/rate"
	_ "gopkg.in/yaml.v3"
)
