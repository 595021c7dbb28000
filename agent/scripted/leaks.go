package scripted

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Leaks reports every request the model received that carries one of the
// secret values (by name), as sent or reversed, in the raw body, in its
// decoded strings (escapes cannot hide a value; tool arguments, which are
// JSON inside a string, are decoded too) or in those strings with all
// white space removed (a value folded over lines). One line per leak.
func (s *Server) Leaks(secrets map[string]string) []string {
	names := make([]string, 0, len(secrets))
	for name := range secrets {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []string
	for i, body := range s.Bodies() {
		text := requestText(body)
		flat := strings.Join(strings.Fields(text), "")
		for _, name := range names {
			v := secrets[name]
			for _, needle := range []string{v, reverse(v)} {
				if strings.Contains(string(body), needle) || strings.Contains(text, needle) || strings.Contains(flat, needle) {
					out = append(out, fmt.Sprintf("request %d carries the %s %s", i+1, name, excerpt(text, needle)))
				}
			}
		}
	}
	return out
}

// requestText is every string of a JSON body, decoded, one per line.
func requestText(body []byte) string {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return string(body)
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x)
			b.WriteByte('\n')
			var inner any
			if json.Unmarshal([]byte(x), &inner) == nil {
				if _, ok := inner.(string); !ok {
					walk(inner)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

// excerpt shows where needle sits in text.
func excerpt(text, needle string) string {
	i := strings.Index(text, needle)
	if i < 0 {
		return "(folded over lines, or in the raw body)"
	}
	return fmt.Sprintf("(…%s…)", text[max(0, i-60):min(len(text), i+len(needle)+20)])
}

// Received reports whether any request the model received carries s in
// its decoded text.
func (s *Server) Received(sub string) bool {
	for _, body := range s.Bodies() {
		if strings.Contains(requestText(body), sub) {
			return true
		}
	}
	return false
}

// Setenver sets an environment variable for the rest of a test
// (testing.T's Setenv).
type Setenver interface {
	Setenv(key, value string)
}

// HostileEnv gives a whole-run attack test its secrets: it puts
// credentials in the process environment (MYSQL_PWD, CI_JOB_JWT, a
// DATABASE_URL with a password, a bearer token in GIT_CONFIG_PARAMETERS)
// and returns every secret value by name, with the ones the test plants
// itself: "committed .env" (a value to commit in .env) and "NATS
// password" (to write in the swarm's auth.json). Leaks takes the map.
func HostileEnv(t Setenver) map[string]string {
	secrets := map[string]string{
		"committed .env":        "sk_live_51HdTq8KzR4vWn2Lp9XyA7Bc",
		"NATS password":         "4e1f0c9b8a7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d",
		"MYSQL_PWD":             "hunter2-mysql-Zq8Wm3Kp",
		"CI_JOB_JWT":            "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjaSJ9.c2lnbmF0dXJlLXZhbHVlLTEyMw",
		"DATABASE_URL password": "pg-Secr3t-Vx7Lq2Np",
		"GIT_CONFIG_PARAMETERS": "ghp_R4nd0mT0k3nV4lu3F0rT3st1ng0123456789",
	}
	t.Setenv("MYSQL_PWD", secrets["MYSQL_PWD"])
	t.Setenv("CI_JOB_JWT", secrets["CI_JOB_JWT"])
	t.Setenv("DATABASE_URL", "postgres://app:"+secrets["DATABASE_URL password"]+"@db.internal:5432/app?sslmode=disable")
	t.Setenv("GIT_CONFIG_PARAMETERS", "'http.extraHeader'='Authorization: Bearer "+secrets["GIT_CONFIG_PARAMETERS"]+"'")
	return secrets
}
