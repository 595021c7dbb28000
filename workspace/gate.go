package workspace

import (
	"bytes"
	"fmt"
	"math"
	"path"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Blocked is the replacement for a line that carries a secret.
const Blocked = "[blocked]"

// DefaultSensitivePaths are the path globs (doublestar, matched against the
// whole relative path and the base name) of files whose content is never
// revealed.
var DefaultSensitivePaths = []string{
	".env", ".env.*", "*.env", ".envrc",
	"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
	".npmrc", ".pypirc", ".netrc", ".pgpass", ".git-credentials", ".dockercfg",
	"credentials", "credentials.json", "credentials.yml", "credentials.yaml",
	"*.secret", "*.secrets",
	// secret(s).<data format>: a secret.go or secrets.py is code.
	"secret.json", "secret.yaml", "secret.yml", "secret.toml", "secret.ini", "secret.txt", "secret.env", "secret.properties", "secret.xml", "secret.conf", "secret.cfg",
	"secrets.json", "secrets.yaml", "secrets.yml", "secrets.toml", "secrets.ini", "secrets.txt", "secrets.env", "secrets.properties", "secrets.xml", "secrets.conf", "secrets.cfg",
	"kubeconfig", ".kube/config", ".aws/credentials", ".docker/config.json",
	"service-account*.json", "*.tfstate", "*.tfvars",
}

// secretPattern recognises one kind of secret on a line. For the generic
// patterns, the first submatch is the value, and a match counts only when
// the value looks random (plausibleSecret): `token.MUL: "multiplication"` or
// `token = strings.ReplaceAll(...)` are code, not credentials.
type secretPattern struct {
	name    string
	re      *regexp.Regexp
	generic bool
}

// secretPatterns recognise secrets inside content, one line at a time.
var secretPatterns = []secretPattern{
	{name: "private key", re: regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)},
	{name: "AWS access key", re: regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`)},
	{name: "AWS secret key", re: regexp.MustCompile(`(?i)aws_?secret_?access_?key\s*[:=]\s*["']?[A-Za-z0-9/+=]{40}`)},
	{name: "GitHub token", re: regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b|\bgithub_pat_[A-Za-z0-9_]{22,}\b`)},
	{name: "GitLab token", re: regexp.MustCompile(`\bglpat-[A-Za-z0-9_\-]{20,}\b`)},
	{name: "Slack token", re: regexp.MustCompile(`\bxox[baprs]-[A-Za-z0-9-]{10,}\b`)},
	{name: "OpenAI-style key", re: regexp.MustCompile(`\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{20,}\b`)},
	{name: "Google API key", re: regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}\b`)},
	{name: "Stripe key", re: regexp.MustCompile(`\b(?:sk|rk)_live_[0-9A-Za-z]{20,}\b`)},
	{name: "JWT", re: regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}`)},
	{name: "credential assignment", generic: true,
		re: regexp.MustCompile(`(?i)\b[a-z0-9_.\-]*(?:api[_-]?key|secret|passw(?:or)?d|token|access[_-]?key|client[_-]?secret)[a-z0-9_.\-]*["']?\s*[:=]\s*["']([^\s"'\\<>(){}\[\]]{12,200})["']`)},
	{name: "secret environment assignment", generic: true,
		re: regexp.MustCompile(`(?i)(?:^|[\s;])(?:export\s+)?[A-Z0-9_]*(?:API_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|ACCESS_?KEY)[A-Z0-9_]*\s*=\s*["']?([A-Za-z0-9_\-+/=.]{16,})(?:["'\s;]|$)`)},
	{name: "URL with password", re: regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@]+:[^/\s:@]{6,}@`)},
}

// match reports whether the line holds this kind of secret.
func (p secretPattern) match(line string) bool {
	if !p.generic {
		return p.re.MatchString(line)
	}
	for _, m := range p.re.FindAllStringSubmatch(line, -1) {
		if plausibleSecret(m[1]) {
			return true
		}
	}
	return false
}

// plausibleSecret reports whether a value looks generated rather than
// written: letters and digits mixed with some variety (hunter2hunter2…), or
// a high character entropy (random letters). Words and identifiers
// ("multiplication", "encodeUserPassword") are not secrets.
func plausibleSecret(v string) bool {
	var letter, digit bool
	counts := map[rune]float64{}
	n := 0.0
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letter = true
		}
		counts[r]++
		n++
	}
	var h float64 // Shannon entropy, bits per character
	for _, c := range counts {
		h -= c / n * math.Log2(c/n)
	}
	return letter && digit && h >= 2.5 || h >= 4
}

// Gate decides what content may be revealed to the model or a user.
type Gate struct {
	paths []string
	// names are the patterns without a slash, matched against each path
	// element: exact names by lookup, "x*" and "*x" by prefix and suffix,
	// the rest with path.Match.
	exact              map[string]string
	prefixes, suffixes []string
	names              []string
	// deep are the patterns with a slash, matched against whole paths.
	deep []string
}

// NewGate makes a gate over the default sensitive paths plus extra globs.
// It rejects malformed globs, naming them.
func NewGate(extra ...string) (*Gate, error) {
	g := &Gate{paths: append([]string(nil), DefaultSensitivePaths...)}
	for _, p := range extra {
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf("invalid sensitive path pattern %q: use doublestar glob syntax, e.g. **/*.pem", p)
		}
		g.paths = append(g.paths, p)
	}
	g.exact = map[string]string{}
	for _, p := range g.paths {
		wild := strings.ContainsAny(p, "*?[\\{")
		star := strings.Count(p, "*")
		switch {
		case strings.Contains(p, "/"):
			g.deep = append(g.deep, p)
		case !wild:
			g.exact[p] = p
		case star == 1 && strings.HasSuffix(p, "*") && !strings.ContainsAny(p, "?[\\{"):
			g.prefixes = append(g.prefixes, p)
		case star == 1 && strings.HasPrefix(p, "*") && !strings.ContainsAny(p, "?[\\{"):
			g.suffixes = append(g.suffixes, p)
		default:
			g.names = append(g.names, p)
		}
	}
	return g, nil
}

// DefaultGate is the gate with only the default rules.
func DefaultGate() *Gate {
	g, _ := NewGate()
	return g
}

// PathBlocked reports whether a file's path marks it as sensitive: a
// pattern without a slash matches the file's name or any directory name in
// its path; one with a slash matches the path or a suffix of it.
func (g *Gate) PathBlocked(rel string) (reason string, blocked bool) {
	for _, part := range strings.Split(rel, "/") {
		if p, ok := g.exact[part]; ok {
			return fmt.Sprintf("File matches sensitive path pattern %q", p), true
		}
		for _, p := range g.prefixes {
			if strings.HasPrefix(part, p[:len(p)-1]) {
				return fmt.Sprintf("File matches sensitive path pattern %q", p), true
			}
		}
		for _, p := range g.suffixes {
			if strings.HasSuffix(part, p[1:]) {
				return fmt.Sprintf("File matches sensitive path pattern %q", p), true
			}
		}
		for _, p := range g.names {
			if m, _ := path.Match(p, part); m {
				return fmt.Sprintf("File matches sensitive path pattern %q", p), true
			}
		}
	}
	for _, p := range g.deep {
		if m, _ := doublestar.Match(p, rel); m {
			return fmt.Sprintf("File matches sensitive path pattern %q", p), true
		}
		if m, _ := doublestar.Match("**/"+p, rel); m {
			return fmt.Sprintf("File matches sensitive path pattern %q", p), true
		}
	}
	return "", false
}

// secretHints are lower-case substrings one of which every secret pattern
// needs; lines without any of them are skipped cheaply.
var secretHints = []string{"private key", "akia", "asia", "abia", "acca", "aws", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
	"glpat-", "xox", "sk-", "aiza", "_live_", "eyj", "key", "secret", "passw", "token", "://"}

// mayHaveSecret is the cheap pre-check of LineSecret.
func mayHaveSecret(line string) bool {
	lower := strings.ToLower(line)
	for _, h := range secretHints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

// LineSecret names the kind of secret on a line ("" when there is none).
func LineSecret(line string) string {
	if !mayHaveSecret(line) {
		return ""
	}
	for _, p := range secretPatterns {
		if p.match(line) {
			return p.name
		}
	}
	return ""
}

// ContentBlocked reports whether content carries a secret. Only lines that
// hold one of the secret hints are matched against the patterns, so large
// files cost a few memchr-speed passes.
func (g *Gate) ContentBlocked(data []byte) (reason string, blocked bool) {
	for _, line := range candidateLines(data) {
		if name := LineSecret(string(line)); name != "" {
			return "File contains sensitive content (" + name + ")", true
		}
	}
	return "", false
}

// candidateLines returns the lines of data that contain a secret hint.
func candidateLines(data []byte) [][]byte {
	low := asciiLower(data)
	var out [][]byte
	seen := map[int]bool{}
	for _, h := range secretHints {
		hint := []byte(h)
		for off := 0; off < len(low); {
			i := bytes.Index(low[off:], hint)
			if i < 0 {
				break
			}
			at := off + i
			start := bytes.LastIndexByte(data[:at], '\n') + 1
			end := bytes.IndexByte(data[at:], '\n')
			if end < 0 {
				end = len(data)
			} else {
				end += at
			}
			if !seen[start] {
				seen[start] = true
				out = append(out, data[start:end])
			}
			off = end + 1
		}
	}
	return out
}

// asciiLower lower-cases the ASCII letters of data byte for byte (the
// hints are ASCII; bytes.ToLower may change the length of invalid UTF-8,
// and offsets into it must hold in data).
func asciiLower(data []byte) []byte {
	out := make([]byte, len(data))
	for i, c := range data {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// RedactLines replaces every line that carries a secret with [blocked]; the
// lines of a private key block are all replaced.
func (g *Gate) RedactLines(text string) string {
	if !g.mayContainSecret(text) {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	inKey := false
	for i, l := range lines {
		body := strings.TrimRight(l, "\r\n")
		nl := l[len(body):]
		switch {
		case inKey:
			if strings.Contains(body, "-----END ") {
				inKey = false
			}
			lines[i] = Blocked + nl
		case LineSecret(body) != "":
			if secretPatterns[0].re.MatchString(body) && !strings.Contains(body, "-----END ") {
				inKey = true
			}
			lines[i] = Blocked + nl
		}
	}
	return strings.Join(lines, "")
}

// mayContainSecret is a fast pre-check over the whole text.
func (g *Gate) mayContainSecret(text string) bool {
	_, blocked := g.ContentBlocked([]byte(text))
	return blocked
}

// controlBytes marks the bytes that count as control characters.
var controlBytes = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		switch c {
		case '\t', '\n', '\r', '\f', 0x1b:
		default:
			t[c] = 1
		}
	}
	return t
}()

// IsBinary reports whether data looks binary: a NUL byte, or more than 10%
// control characters (other than tab, newline, carriage return, form feed,
// escape) in the first 8 KB.
func IsBinary(data []byte) bool {
	if len(data) > 8192 {
		data = data[:8192]
	}
	if len(data) == 0 {
		return false
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return true
	}
	control := 0
	for _, c := range data {
		control += int(controlBytes[c])
	}
	return control*10 > len(data)
}

// Limits from spec/autarch-tools.md's behavioural constants.
const (
	// MaxGrepFileSize is the largest file grep reads.
	MaxGrepFileSize = 10 << 20
	// MaxGrepResults is how many matches one grep call returns.
	MaxGrepResults = 50
	// BinaryThreshold is the share of control characters that makes a file binary.
	BinaryThreshold = 0.10
)
