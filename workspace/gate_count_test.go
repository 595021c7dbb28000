package workspace

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestGatedCount walks a tree (AUTARCH_GATE_DIR, default
// $(go env GOROOT)/src; AUTARCH_BENCH_GATE=repo for this repository) and
// prints how many files the gate blocks, by path and by content, how many
// lines they hold and how many lines a rule recognises, with each gated
// file and its reason. It is a measurement (false positives on ordinary
// code), run only with AUTARCH_BENCH_GATE set.
func TestGatedCount(t *testing.T) {
	mode := os.Getenv("AUTARCH_BENCH_GATE")
	if mode == "" {
		t.Skip("set AUTARCH_BENCH_GATE=1 (GOROOT/src) or =repo to count gated files")
	}
	dir := os.Getenv("AUTARCH_GATE_DIR")
	switch {
	case dir != "":
	case mode == "repo":
		dir = ".."
	default:
		dir = filepath.Join(runtime.GOROOT(), "src")
	}
	root, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	g := DefaultGate()
	var files, byPath, byContent, lines, gatedLines, secretLines int
	var gated []string
	start := time.Now()
	var buf []byte
	err = NewIgnore(root).Walk(context.Background(), ".", func(rel string, d fs.DirEntry) error {
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		data, err := root.ReadWalked(rel, buf, MaxGrepFileSize)
		if err != nil || data == nil {
			return nil
		}
		buf = data
		if IsBinary(data) {
			return nil
		}
		files++
		n := bytes.Count(data, []byte{'\n'}) + 1
		lines += n
		if reason, blocked := g.PathBlocked(rel); blocked {
			byPath++
			gatedLines += n
			gated = append(gated, rel+"\t"+reason)
			return nil
		}
		if reason, blocked := g.ContentBlocked(data); blocked {
			byContent++
			gatedLines += n
			for _, l := range strings.Split(string(data), "\n") {
				if LineSecret(strings.TrimRight(l, "\r")) != "" {
					secretLines++
				}
			}
			gated = append(gated, rel+"\t"+reason)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(gated)
	for _, s := range gated {
		fmt.Println(s)
	}
	fmt.Printf("\n%s: %d text files, %d lines; gated %d files (%d by path, %d by content) holding %d lines; %d lines a rule recognises; %s\n",
		dir, files, lines, byPath+byContent, byPath, byContent, gatedLines, secretLines, time.Since(start).Round(time.Millisecond))
}
