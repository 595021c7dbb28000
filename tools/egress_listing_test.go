package tools

import (
	"context"
	"strings"
	"testing"
)

// TestGrepWalkStandsInForTheHarvest: a session's first grep gives its
// egress filter the listing of its walk, so the harvest walks only what
// the ignore rules hid (not the whole workspace a second time), and masks
// exactly the values its own walk would: those of a blocked file the
// search saw, of an ignored one, of one inside an ignored folder, and
// none from node_modules — whatever the grep's glob. A session whose
// first call is not a grep walks the workspace itself, as before.
func TestGrepWalkStandsInForTheHarvest(t *testing.T) {
	const (
		seen    = "seenValue4f7Qx9Lm2Zp"
		ignored = "ignoredValue8Kd3Wv6Hs"
		inBuild = "buildValue5Tr2Ny7Jc0"
		inNode  = "nodeValue3Gh8Ub1Qe6"
	)
	layout := map[string]string{
		".gitignore":                ".env\nbuild/\n",
		".env":                      "API_SECRET=" + ignored + "\n",
		"config/.env.local":         "DB_PASSWORD=" + seen + "\n",
		"build/deploy/secrets.json": `{"token": "` + inBuild + `"}`,
		"node_modules/pkg/.env":     "NPM_SECRET=" + inNode + "\n",
		"main.go":                   "package main\n\n// value: " + seen + "\n// value: " + ignored + "\n// value: " + inBuild + "\n// value: " + inNode + "\n",
	}
	for _, tc := range []struct {
		name, first string
		args        map[string]any
		wantWalks   int32
	}{
		{"grep first", "grep", map[string]any{"pattern": "value:", "reason": "r"}, 0},
		{"grep with a glob first", "grep", map[string]any{"pattern": "value:", "glob": "**/*.go", "reason": "r"}, 0},
		{"list first", "list_directory", map[string]any{"path": ".", "reason": "r"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, layout)
			h := newHarness(t, "research", SessionConfig{Root: dir})
			h.call(tc.first, tc.args)
			res := h.call("grep", map[string]any{"pattern": "value:", "reason": "r"})
			for _, v := range []string{seen, ignored, inBuild} {
				if strings.Contains(res.Output, v) {
					t.Errorf("%s reached the model: %s", v, res.Output)
				}
			}
			if !strings.Contains(res.Output, inNode) {
				t.Errorf("the node_modules value was masked; the harvest never reads node_modules: %s", res.Output)
			}
			if got := h.s.egress.lazy.walks.Load(); got != tc.wantWalks {
				t.Errorf("the harvest walked the whole workspace %d times, want %d", got, tc.wantWalks)
			}
			own := NewEgress(context.Background(), nil, DefaultEgressSources(dir, ""))
			if got, want := h.s.egress.Values(), own.Values(); got != want {
				t.Errorf("%d values masked, want %d (the harvest's own walk)", got, want)
			}
		})
	}
}
