//go:build !linux

package cliutil

import (
	"errors"
	"os"
)

func createUnnamed(dir string) (*os.File, bool) { return nil, false }

func nameUnnamed(f *os.File, name string) error { return errors.New("unnamed files need Linux") }

func startWriteback(f *os.File) {}
