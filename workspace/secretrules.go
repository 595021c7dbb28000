package workspace

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/autarch-dev/autarch/workspace/textsearch"
)

// ruleSpec is one secret rule as data: our own (localRules) or ported from
// gitleaks (gitleaksRules, secretrules_gitleaks.go).
type ruleSpec struct {
	name string
	// re finds the secret on one line. The secret is submatch group (or,
	// when group is 0, the first non-empty submatch, else the whole match).
	re    string
	group int
	// entropy is the least Shannon entropy (bits per byte) of the secret.
	entropy float64
	// generic: the secret must look generated (plausibleSecret), as
	// `token.MUL: "multiplication"` is code, not a credential.
	generic bool
	// keywords are lower-case strings one of which a line must contain
	// (case-insensitively) before re is tried.
	keywords []string
	allow    []allowSpec
}

// allowSpec is an allowlist: a match is no secret when one of the regexes
// matches its target ("secret" by default, "match" or "line") or the
// secret contains a stop word.
type allowSpec struct {
	target    string
	regexes   []string
	stopwords []string
}

// keyBodyPattern recognises the first base64 line of a private key's body
// (the DER or OpenSSH encoding starts the same way in every key), so a key
// is caught without its -----BEGIN line (tail -n +2 id_rsa). Public keys
// and certificates start differently (…AAOC…, MIIB…CCA…).
//
// Literals are broken with a character class ([E]) so that this source
// does not match its own rule.
const keyBodyPattern = `b3BlbnNzaC1rZXktdj[E]` + // "openssh-key-v1"
	`|MII[A-Za-z0-9+/]{3}IBAAK[BC]` + // PKCS#1 RSA, DSA
	`|MII[A-Za-z0-9+/]{3}IBADANBgkqhkiG9w0BAQEFAAS` + // PKCS#8 RSA
	`|AgEAMBMGByqGSM49Ag[E]G` + // PKCS#8 EC
	`|\bMHcCAQEEI|\bMIGkAgEBBDA|\bMIHcAgEBBEI` + // SEC 1 EC P-256, P-384, P-521
	`|\bMC4CAQAwBQYDK2VwBCIEI` + // PKCS#8 Ed25519
	`|BgkqhkiG9w0BBQ0[w]` // PKCS#8 encrypted (PBES2)

// credentialWords are the keywords of the generic credential rules.
var credentialWords = []string{"apikey", "api_key", "api-key", "accesskey", "access_key", "access-key", "secret", "passwd", "password", "token"}

// localRules are ours: the rules the gitleaks set lacks or words too
// loosely for code (the generic ones check plausibleSecret), and the names
// earlier versions of the gate reported.
var localRules = []ruleSpec{
	{name: "private key", re: `-{4,5} ?BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)? ?-{4,5}`, keywords: []string{"private key"}},
	{name: "private key body", re: keyBodyPattern, keywords: []string{"b3blbnnzac1rzxktdje", "ibaakb", "ibaakc", "ibadanbgkqhkig9w0baqefaas", "ageambmgbyqgsm49ageg",
		"mhccaqeei", "migkagebbda", "mihcagebbei", "mc4caqawbqydk2vwbciei", "bgkqhkig9w0bbq0w"}},
	{name: "PuTTY private key", re: `PuTTY-User-Key-File-\d+:`, keywords: []string{"putty-user-key-file-"}},
	{name: "AWS access key", re: `\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`, keywords: []string{"akia", "asia", "abia", "acca"}},
	{name: "AWS secret key", re: `(?i)aws_?secret_?access_?key\s*[:=]\s*["']?[A-Za-z0-9/+=]{40}`, keywords: []string{"awssecret", "aws_secret"}},
	{name: "GitHub token", re: `\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b|\bgithub_pat_[A-Za-z0-9_]{22,}\b`, keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
	{name: "GitLab token", re: `\bglpat-[A-Za-z0-9_\-]{20,}\b`, keywords: []string{"glpat-"}},
	{name: "Slack token", re: `\bxox[baprs]-[A-Za-z0-9-]{10,}\b`, keywords: []string{"xox"}},
	{name: "Slack webhook", re: `hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}`, keywords: []string{"hooks.slack.com"}},
	{name: "Discord webhook", re: `discord(?:app)?\.com/api/webhooks/[0-9]{15,22}/[A-Za-z0-9_-]{40,}`, keywords: []string{"discord"}},
	{name: "OpenAI-style key", re: `\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{20,}\b`, keywords: []string{"sk-"}},
	{name: "Google API key", re: `\bAIza[0-9A-Za-z_\-]{35}\b`, keywords: []string{"aiza"}},
	{name: "Stripe key", re: `\b(?:sk|rk)_live_[0-9A-Za-z]{20,}\b`, keywords: []string{"_live_"}},
	{name: "JWT", re: `\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}`, keywords: []string{"eyj"}},
	{name: "npm token", re: `\bnpm_[A-Za-z0-9]{36}\b`, keywords: []string{"npm_"}},
	{name: "Hugging Face token", generic: true, re: `\b(hf_[A-Za-z0-9]{30,40})\b`, keywords: []string{"hf_"}},
	{name: "SendGrid key", re: `\bSG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}`, keywords: []string{"sg."}},
	{name: "Azure storage key", re: `(?i)\bAccountKey\s*=\s*[A-Za-z0-9+/]{40,}={0,2}`, keywords: []string{"accountkey"}},
	{name: "Azure SAS signature", re: `(?i)[?&;\s"']sig=[A-Za-z0-9%+/]{30,}`, keywords: []string{"sig="}},
	{name: "Twilio auth token", re: `(?i)twilio[\w.-]{0,20}?token["']?\s*[:=]\s*["']?[a-f0-9]{32}\b`, keywords: []string{"twilio"}},
	{name: "Mailgun key", generic: true, re: `\b(key-[0-9a-f]{32})\b`, keywords: []string{"key-"}},
	{name: "PyPI token", re: `\bpypi-[A-Za-z0-9_\-]{50,}`, keywords: []string{"pypi-"}},
	{name: "authorization header", re: `(?i)\b(?:proxy-)?authorization["']?\s*[:=,]\s*["']?basic\s+[A-Za-z0-9+/]{8,}={0,2}`, keywords: []string{"authorization"}},
	{name: "bearer token", generic: true, re: `(?i)\b(?:bearer|token|bot)\s+([A-Za-z0-9._~+/-]{16,}=*)`, keywords: []string{"bearer", "authorization"}},
	{name: "credential assignment", generic: true, keywords: credentialWords,
		re: `(?i)\b[a-z0-9_.\-]*(?:api[_-]?key|secret|passw(?:or)?d|token|access[_-]?key|client[_-]?secret)[a-z0-9_.\-]*["']?\s*[:=]\s*["']([^\s"'\\<>(){}\[\]]{12,200})["']`},
	{name: "secret environment assignment", generic: true, keywords: credentialWords,
		re: `(?i)(?:^|[\s;])(?:export\s+)?[A-Z0-9_]*(?:API_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|ACCESS_?KEY)[A-Z0-9_]*\s*=\s*["']?([A-Za-z0-9_\-+/=.]{16,})(?:["'\s;]|$)`},
	// YAML and INI style: `password: S3cr3tP4ss` unquoted, to the end of the line.
	{name: "unquoted credential", generic: true, keywords: append([]string{"pwd", "credential", "private_key", "private-key", "privatekey"}, credentialWords...),
		re: `(?i)^\s*(?:-\s+)?["']?[\w.-]*(?:passw(?:or)?d|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)[\w.-]*["']?\s*[:=]\s*([^\s'"#{}\[\]()<>$,;\\]{8,200})\s*(?:#.*)?$`},
	{name: "URL with password", re: `[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@]+:[^/\s:@]{6,}@`, keywords: []string{"://"}},
	// DATABASE_URL=postgres://db/app?sslmode=require&password=…
	{name: "URL with password", generic: true, keywords: []string{"password=", "passwd=", "pwd=", "pass=", "token=", "secret=", "api_key=", "apikey="},
		re: `(?i)[a-z][a-z0-9+.\-]*://[^\s"'<>]*?[?&;](?:password|passwd|pwd|pass|secret|[a-z_]*token|api_?key)=([^&\s"'#<>]{6,200})`},
	// Framework signing keys, whose values are punctuation-rich
	// (Django's generated SECRET_KEY, 'django-insecure-' and 50 of
	// a-z0-9!@#$%^&*(-_=+), Rails'
	// secret_key_base, Flask's app.config['SECRET_KEY'], JWT_SECRET=…):
	// quoted in code, or alone on a .env, shell or YAML line.
	{name: "secret key", generic: true, keywords: []string{"secret", "signing"},
		re: `(?i)\b[a-z0-9_.]*(?:secret_?key(?:_?base)?|jwt_?secret[a-z0-9_]*|signing_?key|session_?secret|app_?secret|secret)["']?\]?\s*(?:[:=]|=>)\s*[bfr]?(?:'([^'\s<>${}%][^'\s]{15,199})'|"([^"\s<>${}%][^"\s]{15,199})")`},
	{name: "secret key", generic: true, keywords: []string{"secret", "signing"},
		re: `(?i)^\s*(?:export\s+)?[a-z0-9_]*(?:secret_?key(?:_?base)?|jwt_?secret[a-z0-9_]*|signing_?key|session_?secret|app_?secret)\s*[:=]\s*([^\s"'#<>${}%][^\s"']{14,198}[^\s"'#),;{])\s*$`},
	// A private key hex-encoded (xxd, hexdump, od, \x escapes, C arrays)
	// or its PEM header base64-encoded (a Kubernetes secret's tls.key,
	// base64 < id_rsa).
	{name: "private key (hex)", re: hexKeyPattern(), keywords: hexKeyKeywords()},
	{name: "private key (base64)", re: b64KeyPattern, keywords: []string{"ifbssvzbveugs0vz", "bquklwqvrfietf", "gufjjvkfursbl"}},
}

// hexSep is what may stand between the bytes of a hex dump: nothing (xxd
// -p), a space (od, hexdump, xxd's groups), \x or 0x with commas.
const hexSep = `[ \t,:]*(?:\\x|0x)?`

// hexOf is the pattern of s hex-encoded, any case, bytes separated by
// hexSep.
func hexOf(s string) string {
	parts := make([]string, len(s))
	for i := range len(s) {
		parts[i] = fmt.Sprintf("%02x", s[i])
	}
	return strings.Join(parts, hexSep)
}

// pemBegin is the armour's start, split so that this file holds no key
// header.
const pemBegin = "-----" + "BEGIN "

// hexKeyPattern recognises a private key's armour or body hex-encoded:
// the armour's start followed by a private key type (xxd's 16-byte lines
// cut the header after "-----BEGIN RSA P"), " PRIVATE KEY" anywhere, and
// the first bytes of an OpenSSH, PKCS#1 or PKCS#8 body.
func hexKeyPattern() string {
	var types []string
	for _, t := range []string{"RSA ", "EC P", "DSA ", "OPEN", "ENCR", "PRIV", "PGP "} {
		types = append(types, hexOf(t))
	}
	anyByte := `[0-9a-f]{2}` + hexSep
	return `(?i)` + hexOf(pemBegin) + hexSep + `(?:` + strings.Join(types, "|") + `)` +
		`|` + hexOf("PRIVATE"+" KEY") +
		`|` + hexOf("b3BlbnNzaC1rZXktdj") +
		`|` + hexOf("MII") + hexSep + anyByte + anyByte + anyByte + `(?:` + hexOf("IBAAK") + `|` + hexOf("IBADANBgkq") + `)`
}

// hexKeyKeywords are the first bytes of hexKeyPattern's alternatives in
// each dump format, lower case.
func hexKeyKeywords() []string {
	var kw []string
	for _, lit := range []string{"-----", "PRIVA", "b3Bl", "IBAA"} {
		h := make([]string, len(lit))
		for i := range len(lit) {
			h[i] = fmt.Sprintf("%02x", lit[i])
		}
		for _, sep := range []string{"", " ", `\x`, ", 0x", ",0x", ":"} {
			kw = append(kw, strings.Join(h, sep))
		}
		// xxd's two-byte groups, at either alignment.
		kw = append(kw, h[0]+h[1]+" "+h[2]+h[3], h[0]+" "+h[1]+h[2]+" "+h[3])
	}
	return kw
}

// b64KeyPattern is " PRIVATE KEY" base64-encoded at each of the three
// alignments (the characters that depend on it alone), with literals
// broken by a character class so that this file does not match it.
const b64KeyPattern = `IFBSSVZBVEUgS0V[Z]|BQUklWQVRFIEt[F]|gUFJJVkFURSB[L]`

// hexConstant is a number literal of at most 64 bits.
var hexConstant = regexp.MustCompile(`^[-+]?0[xX][0-9a-fA-F_]+$`)

// gitleaksEntropy raises the entropy a few gitleaks rules ask of a secret,
// where base64 data in ordinary files matches them (Go's
// debug/buildinfo testdata: "Dx+EAAAAAABIqQcAAAAPhes…" for Square).
var gitleaksEntropy = map[string]float64{"square-access-token": 4}

// keywordGuards are cheap checks at a keyword's hit (end: the index of its
// last byte) that a rule's regex needs there, for rules whose keywords are
// too common to send each hit to the regex: vault-service-token's `s.` is
// in every `os.` and `bytes.`, jwt's `ey` in every `key`. A guard must
// hold at the hit of the keyword inside any match of the regex (it only
// spares the regex lines it cannot match), so no verdict changes
// (TestGuardsKeepVerdicts). Bytes ≥ 0x80 pass every class test, since
// (?i) folds K and ſ into [a-z]. The gitleaks rules shaped
// `[\w.-]{0,50}?(?:keyword)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:…|,)…` get
// assignNear (familyGuard).
var keywordGuards = map[string]func(data []byte, end int) bool{
	"vault-service-token": vaultTokenNear,
	// \b(ey[a-zA-Z0-9]{17,}\.ey…
	"jwt": func(data []byte, end int) bool {
		return end >= 1 && data[end-1] == 'e' && data[end] == 'y' && (end == 1 || !isWordByte(data[end-2])) &&
			runOf(data[end+1:], isAlnumByte, 17)
	},
	// (live|test)_[a-f0-9]{35}
	"lob-api-key": func(data []byte, end int) bool { return runOf(data[end+1:], isHexByte, 35) },
	// …(?:api[_-]?key|secret|…)[a-z0-9_.\-]*["']?\s*[:=]…
	// …["']([^\s"'\\<>(){}\[\]]{12,200})["'] (credentialValueNear).
	"credential assignment": credentialValueNear,
	// …(?:API_?KEY|SECRET|…)[A-Z0-9_]*\s*=…
	// …\s*=\s*["']?([A-Za-z0-9_\-+/=.]{16,})(?:["'\s;]|$) (envValueNear).
	"secret environment assignment": envValueNear,
	// [a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@]+:[^/\s:@]{6,}@ (the other rule of
	// the name, keyed by password= and the like, is not guarded).
	"URL with password": func(data []byte, end int) bool {
		if end < 2 || string(data[end-2:end+1]) != "://" {
			return true
		}
		i := end + 1
		for i < len(data) && !isURLStop(data[i]) {
			i++
		}
		if i == end+1 || i >= len(data) || data[i] != ':' {
			return false
		}
		j := i + 1
		for j < len(data) && !isURLStop(data[j]) {
			j++
		}
		return j-i-1 >= 6 && j < len(data) && data[j] == '@'
	},
	// \b((?:sc|ext|scauth|authress)_(?i)[a-z0-9]{5,30}\.
	"authress-service-client-access-key": func(data []byte, end int) bool { return runOf(data[end+1:], isAlnumByte, 5) },
	// \bA3-[A-Z0-9]{6}-
	"1password-secret-key": func(data []byte, end int) bool {
		return end >= 2 && data[end-2] == 'A' && len(data) > end+7 && data[end+7] == '-' &&
			runOf(data[end+1:], isUpperDigit, 6)
	},
	// SK[0-9a-fA-F]{32}, case-sensitive: its keyword "sk" is in every
	// "task", "mask" and "disk".
	"twilio-api-key": func(data []byte, end int) bool {
		return end >= 1 && data[end-1] == 'S' && data[end] == 'K' && runOf(data[end+1:], isHexByte, 32)
	},
	// ^\s*(?:-\s+)?["']?[\w.-]*(?:passw(?:or)?d|…|credentials?)[\w.-]*["']?\s*[:=]…
	"unquoted credential": unquotedKeyNear,
	// …(?:secret_?key(?:_?base)?|…|signing_?key|…|secret)["']?\]?\s*(?:[:=]|=>)…
	// and …[a-z0-9_]*(?:secret_?key…)\s*[:=]… (the two rules of the name).
	"secret key": func(data []byte, end int) bool {
		text := data[end+1:]
		i := 0
		for i < len(text) && (text[i] >= 0x80 || isWordByte(text[i])) {
			i++
		}
		if i < len(text) && (text[i] == '"' || text[i] == '\'') {
			i++
		}
		if i < len(text) && text[i] == ']' {
			i++
		}
		op := opAt(text[i:], func(byte) bool { return false }, "", ":=")
		return op >= 0 && secretKeyValueAfter(text[i:], op)
	},
	// (?i)[\w.-]{0,50}?(?:administrat(?:)or_login_password|password)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|…)
	"hashicorp-tf-password": assignNear,
	// (?i)[\w.-]{0,50}?(?:(?-i:ETSY|[Ee]tsy))(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|…)
	"etsy-access-token": assignNear,
	// \bSG\.[A-Za-z0-9_\-]{16,32}\. and \b(SG\.(?i)[a-z0-9=_\-\.]{66})
	"SendGrid key":       sendGridNear,
	"sendgrid-api-token": sendGridNear,
	// \b(hf_[A-Za-z0-9]{30,40})\b and \b(hf_(?i:[a-z]{34}))
	"Hugging Face token":       func(data []byte, end int) bool { return runOf(data[end+1:], isAlnumByte, 30) },
	"huggingface-access-token": func(data []byte, end int) bool { return runOf(data[end+1:], isAlnumByte, 34) },
	// \b(key-[0-9a-f]{32})\b
	"Mailgun key": func(data []byte, end int) bool { return runOf(data[end+1:], isHexByte, 32) },
	// \b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b and
	// \b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b
	"AWS access key":   func(data []byte, end int) bool { return runOf(data[end+1:], isUpperDigit, 16) },
	"aws-access-token": func(data []byte, end int) bool { return runOf(data[end+1:], isUpperDigit, 16) },
}

// sendGridNear: after "SG." at least 16 of the characters both SendGrid
// rules take.
func sendGridNear(data []byte, end int) bool {
	return runOf(data[end+1:], func(c byte) bool { return isWordByte(c) || c == '-' || c == '=' || c == '.' }, 16)
}

// unquotedKeyNear is the guard of the unquoted credential rule: the line
// up to the keyword is white space, '-', quotes and [\w.-] (the rule's
// ^\s*(?:-\s+)?["']?[\w.-]*), and the keyword is followed by [\w.-]*, a
// quote, white space and ':' or '=', then the value to the end of the
// line (unquotedValueAfter). Every alternative of the rule holds
// one of its keywords (privatekey too), so a match's own hit passes.
func unquotedKeyNear(data []byte, end int) bool {
	text := data[end+1:]
	op := opAt(text, func(c byte) bool { return isWordByte(c) || c == '.' || c == '-' }, `"'`, ":=")
	if op < 0 || !unquotedValueAfter(text, op) {
		return false
	}
	for i := end; i >= 0 && data[i] != '\n'; i-- {
		c := data[i]
		if c < 0x80 && !isWordByte(c) && c != '.' && c != '-' && c != '"' && c != '\'' && c != ' ' && c != '\t' && c != '\f' && c != '\r' {
			return false
		}
	}
	return true
}

func isUpperDigit(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' }

// isURLStop is what URL with password's [^/\s:@] excludes.
func isURLStop(c byte) bool {
	return c == '/' || c == ':' || c == '@' || c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// familyPrefix recognises the gitleaks rules whose keyword is followed by
// an assignment within a few word characters and quotes.
var familyPrefix = regexp.MustCompile(`^\(\?i\)\[\\w\.-\]\{0,50\}\?\(\?:([a-z0-9_|-]+)\)\(\?:\[ \\t\\w\.-\]\{0,20\}\)\[\\s'"\]\{0,3\}\(\?:=\|>\|:\{1,3\}=\|\\\|\\\|\|:\|=>\|\\\?=\|,\)`)

// familyGuard is assignNear for a rule of familyPrefix's shape whose
// alternatives are all its keywords (so the hit at a match's alternative
// is followed by the assignment), else nil.
func familyGuard(spec ruleSpec) func([]byte, int) bool {
	m := familyPrefix.FindStringSubmatch(spec.re)
	if m == nil {
		return nil
	}
	for _, alt := range strings.Split(m[1], "|") {
		if !slices.Contains(spec.keywords, alt) {
			return nil
		}
	}
	if g := familyValueGuard(spec.re[len(m[0]):]); g != nil {
		return g
	}
	return assignNear
}

// familyValueSkip is what stands between a family rule's assignment
// operator and its value: [\x60'"\s=]{0,5}, then the value's group.
const familyValueSkip = `[\x60'"\s=]{0,5}(`

// familyValueGuard is assignNear that also checks the value: after the
// operator (at most 4 bytes) and at most 5 quotes, spaces or '=', a run
// of at least the value's least length of bytes the value can hold (any
// byte ≥ 0x80 among them). rest is the rule's regex after the operator;
// a rest not of the family's shape gives nil. (On minified JavaScript,
// linear: and the like are followed by an assignment, rarely by 32 hex
// digits, and each line sent to the regex costs a scan of the line.)
func familyValueGuard(rest string) func([]byte, int) bool {
	if !strings.HasPrefix(rest, familyValueSkip) {
		return nil
	}
	re, err := syntax.Parse(rest, syntax.Perl|syntax.FoldCase)
	if err != nil {
		return nil
	}
	var value *syntax.Regexp
	var find func(r *syntax.Regexp)
	find = func(r *syntax.Regexp) {
		if value != nil {
			return
		}
		if r.Op == syntax.OpCapture {
			value = r
			return
		}
		for _, s := range r.Sub {
			find(s)
		}
	}
	find(re)
	if value == nil {
		return nil
	}
	var set [256]bool
	if !byteSet(value, &set) {
		return nil
	}
	least := minChars(value)
	if least < 1 {
		return nil
	}
	return func(data []byte, end int) bool {
		text := data[end+1:]
		// (?:[ \t\w.-]{0,20})[\s'"]{0,3}: at most 23 characters (a
		// byte ≥ 0xC0 starts one, below 0x80 is one) before the operator.
		i, chars := 0, 0
		for i < len(text) && familySkip[text[i]] {
			if c := text[i]; c < 0x80 || c >= 0xc0 {
				if chars++; chars > 23 {
					return false
				}
			}
			i++
		}
		if i >= len(text) || strings.IndexByte("=>:|?,", text[i]) < 0 {
			return false
		}
		// A run of least bytes of the value starting at most 9 bytes
		// after the operator.
		run := 0
		for j := i + 1; j < len(text) && j < i+9+least; j++ {
			if text[j] < 0x80 && !set[text[j]] {
				run = 0
				continue
			}
			if run++; run >= least {
				return true
			}
		}
		return false
	}
}

// familySkip is what familyValueGuard steps over between the keyword and
// the operator: word bytes, '.', '-', white space, quotes, bytes ≥ 0x80.
var familySkip = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 0x80 || isWordByte(byte(c)) || strings.IndexByte(".- \t\n\f\r\v'\"", byte(c)) >= 0
	}
	return t
}()

// byteSet adds to set every ASCII byte r can match (false when r holds
// something byteSet does not know).
func byteSet(r *syntax.Regexp, set *[256]bool) bool {
	switch r.Op {
	case syntax.OpLiteral:
		for _, c := range r.Rune {
			for f := c; ; {
				if f < 0x80 {
					set[f] = true
				}
				if f = unicode.SimpleFold(f); f == c {
					break
				}
			}
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(r.Rune); i += 2 {
			for c := r.Rune[i]; c <= r.Rune[i+1] && c < 0x80; c++ {
				set[c] = true
			}
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		for c := range 0x80 {
			set[c] = true
		}
	case syntax.OpCapture, syntax.OpConcat, syntax.OpAlternate, syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		for _, s := range r.Sub {
			if !byteSet(s, set) {
				return false
			}
		}
	case syntax.OpEmptyMatch:
	default:
		return false
	}
	return true
}

// minChars is the least number of characters r matches.
func minChars(r *syntax.Regexp) int {
	switch r.Op {
	case syntax.OpLiteral:
		return len(r.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minChars(r.Sub[0])
	case syntax.OpRepeat:
		return r.Min * minChars(r.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range r.Sub {
			n += minChars(s)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, s := range r.Sub {
			if m := minChars(s); n < 0 || m < n {
				n = m
			}
		}
		return max(n, 0)
	}
	return 0
}

// assignNear: after the keyword, word characters, '.', '-', spaces and
// quotes, then one of = > : | ? , (the start of every assignment operator
// of the family).
func assignNear(data []byte, end int) bool {
	return assignAfter(data[end+1:], func(c byte) bool {
		return isWordByte(c) || c == '.' || c == '-' || c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == '\v' || c == '\'' || c == '"'
	}, "", "=>:|?,")
}

// assignAfter reports whether text starts with bytes of word (or ≥ 0x80),
// at most one of quotes, white space, then one of ops.
func assignAfter(text []byte, word func(byte) bool, quotes, ops string) bool {
	return opAt(text, word, quotes, ops) >= 0
}

// runOf reports whether text starts with n bytes of class (or ≥ 0x80).
func runOf(text []byte, class func(byte) bool, n int) bool {
	if len(text) < n {
		return false
	}
	for _, c := range text[:n] {
		if c < 0x80 && !class(c) {
			return false
		}
	}
	return true
}

func isAlnumByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isHexByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// vaultTokenNear is the guard of `\b((?:hvs\.[\w-]{90,120}|s\.(?i:[a-z0-9]{24})))`:
// the keyword's "s." (end at the '.') starts a word and is followed by 24
// letters or digits, or ends a word-initial "hvs.".
func vaultTokenNear(data []byte, end int) bool {
	s := end - 1
	if s < 0 || data[end] != '.' || data[s] != 's' {
		return false
	}
	if (s == 0 || !isWordByte(data[s-1])) && runOf(data[end+1:], isAlnumByte, 24) {
		return true
	}
	return s >= 2 && data[s-2] == 'h' && data[s-1] == 'v' && (s == 2 || !isWordByte(data[s-3]))
}

// isWordByte reports an ASCII word character (regexp's \b).
func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// rule is a compiled ruleSpec.
type rule struct {
	name    string
	re      *lazyRegexp
	group   int
	entropy float64
	generic bool
	allow   []allowRule
	// near, when set, must hold at a keyword hit for the line to meet re
	// (keywordGuards).
	near func(data []byte, end int) bool
	// need, when set, must hold on a line for re to be tried there
	// (needOf: a run every match holds). Set with the guards.
	need *lineNeed
	// window, when not 0, bounds a match's length in characters, and
	// every match holds a keyword hit (windowOf). Set with the guards.
	window int
}

type allowRule struct {
	target    string
	res       []*lazyRegexp
	stopwords []string
}

// lazyRegexp is a rule's regexp, compiled when a line first reaches it: a
// process that checks a few files compiles the few rules their keywords
// name, not all of them (compiling them all is most of a CLI call's
// start). compileRules has parsed src, so compiling cannot fail.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
	// lines decides whether a line holds a match at all (a DFA, no
	// backtracking or NFA over long lines): most lines a keyword sends to
	// a rule hold none, and they skip the regexp. nil when the pattern is
	// beyond textsearch (too long).
	lines *textsearch.Pattern
	// idle are the lines' searchers not in use (one goroutine each at a
	// time). Not a sync.Pool: the garbage collector empties that, and a
	// searcher's DFA states, built line by line, are most of a rule's
	// cost; a search collects garbage several times.
	idle chan *textsearch.Searcher
}

// newLazyRegexp returns src to compile on first use. The rules are ours
// and fixed; TestRulesAllCompile checks that each one compiles, so a
// process does not parse them all at its start (a tenth of a CLI call's
// start-up).
func newLazyRegexp(src string) (*lazyRegexp, error) {
	return &lazyRegexp{src: src}, nil
}

// compile makes lines (or, for a pattern beyond textsearch, re).
func (l *lazyRegexp) compile() {
	l.once.Do(func() {
		if p, err := textsearch.CompileLines(l.src, true); err == nil {
			l.lines, l.idle = p, make(chan *textsearch.Searcher, runtime.GOMAXPROCS(0))
			return
		}
		if re, err := regexp.Compile(l.src); err == nil {
			l.re = re
			return
		}
		// Not reached (TestRulesAllCompile): a rule that does not compile
		// matches nothing, as one compileRules drops.
		l.re = regexp.MustCompile(`[^\x00-\x{10FFFF}]`)
	})
}

// get is the compiled regexp (the DFA's pattern compiles its regexp only
// here: most lines the DFA sees hold no match and never need it).
func (l *lazyRegexp) get() *regexp.Regexp {
	l.compile()
	if l.lines != nil {
		return l.lines.Regexp()
	}
	return l.re
}

// mayMatch reports whether the regexp may match somewhere in line (which
// holds no newline): false only when the line's DFA decided it holds no
// match; true when it holds one, or the DFA gave up on the pattern
// (Searcher.Exhausted: that searcher is dropped, so the budget it spent
// over many lines does not turn the filter off for good), or there is no
// DFA.
func (l *lazyRegexp) mayMatch(line []byte) bool {
	l.compile()
	if l.lines == nil {
		return true
	}
	var s *textsearch.Searcher
	select {
	case s = <-l.idle:
	default:
		s = l.lines.NewSearcher()
	}
	var at [1]int
	found := len(s.MatchLines(at[:0], line)) > 0
	if s.Exhausted() {
		return true
	}
	select {
	case l.idle <- s:
	default: // as many idle as goroutines that may use one: drop it
	}
	return found
}

// ruleSet is the compiled rules and their keyword automaton.
type ruleSet struct {
	rules []rule
	kw    *keywordAutomaton
	// dropped names the rules Go's regexp cannot compile, with the error.
	dropped []string
}

// secretRules is the compiled rule set, built once on first use (a table
// that is never written afterwards).
var secretRules = sync.OnceValue(func() *ruleSet {
	return compileRules(localRules, gitleaksRules, keywordGuards)
})

// compileRules compiles our rules and gitleaks' (which also get gitleaks'
// global allowlist), dropping any whose regex Go cannot compile.
func compileRules(local, third []ruleSpec, guards map[string]func([]byte, int) bool) *ruleSet {
	rs := &ruleSet{}
	global, _ := compileAllow(gitleaksAllow)
	var kwRules [][]uint16
	var keywords []string
	add := func(spec ruleSpec, extra []allowRule) {
		re, err := newLazyRegexp(spec.re)
		if err != nil {
			rs.dropped = append(rs.dropped, fmt.Sprintf("%s: %v", spec.name, err))
			return
		}
		r := rule{name: spec.name, re: re, group: spec.group, entropy: spec.entropy, generic: spec.generic, allow: extra}
		if guards != nil {
			if r.near = guards[spec.name]; r.near == nil {
				r.near = familyGuard(spec)
			}
			// One parse for the need and the window (a parse is most of
			// compiling the rules, and a process compiles them at start).
			parsed, err := syntax.Parse(spec.re, syntax.Perl)
			if err != nil {
				parsed = nil
			}
			r.need = needOf(parsed)
			kws := make([]string, len(spec.keywords))
			for i, k := range spec.keywords {
				kws[i] = strings.ToLower(k)
			}
			r.window = windowOf(parsed, kws)
		}
		for _, a := range spec.allow {
			ar, err := compileAllow(a)
			if err != nil {
				rs.dropped = append(rs.dropped, fmt.Sprintf("%s allowlist: %v", spec.name, err))
				continue
			}
			r.allow = append(r.allow, ar)
		}
		id := uint16(len(rs.rules))
		rs.rules = append(rs.rules, r)
		for _, k := range spec.keywords {
			k = strings.ToLower(k)
			i := slices.Index(keywords, k)
			if i < 0 {
				i = len(keywords)
				keywords = append(keywords, k)
				kwRules = append(kwRules, nil)
			}
			if !slices.Contains(kwRules[i], id) {
				kwRules[i] = append(kwRules[i], id)
			}
		}
	}
	for _, s := range local {
		add(s, nil)
	}
	for _, s := range third {
		if e, ok := gitleaksEntropy[s.name]; ok {
			s.entropy = e
		}
		add(s, []allowRule{global})
	}
	rs.kw = newKeywordAutomaton(keywords, kwRules)
	return rs
}

func compileAllow(a allowSpec) (allowRule, error) {
	ar := allowRule{target: a.target}
	for _, s := range a.stopwords {
		ar.stopwords = append(ar.stopwords, strings.ToLower(s))
	}
	for _, s := range a.regexes {
		re, err := newLazyRegexp(s)
		if err != nil {
			return allowRule{}, fmt.Errorf("allowlist regex %q: %w", s, err)
		}
		ar.res = append(ar.res, re)
	}
	return ar, nil
}

// matchLine reports whether the line holds this rule's kind of secret.
func (r *rule) matchLine(line []byte) bool {
	if !r.need.holds(line) || !r.re.mayMatch(line) {
		return false
	}
	return r.findLine(line)
}

// findLine is matchLine without its filters (need, mayMatch).
func (r *rule) findLine(line []byte) bool {
	for _, m := range r.re.get().FindAllSubmatchIndex(line, 16) {
		secret := line[m[0]:m[1]]
		switch {
		case r.group > 0 && 2*r.group+1 < len(m) && m[2*r.group] >= 0:
			secret = line[m[2*r.group]:m[2*r.group+1]]
		case r.group == 0:
			for g := 1; 2*g+1 < len(m); g++ {
				if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
					secret = line[m[2*g]:m[2*g+1]]
					break
				}
			}
		}
		if r.entropy > 0 && shannon(secret) < r.entropy {
			continue
		}
		if r.generic && !plausibleSecret(secret) {
			continue
		}
		if r.allowed(secret, line[m[0]:m[1]], line) {
			continue
		}
		return true
	}
	return false
}

// allowed reports whether an allowlist excuses the match.
func (r *rule) allowed(secret, match, line []byte) bool {
	for _, a := range r.allow {
		target := secret
		switch a.target {
		case "match":
			target = match
		case "line":
			target = line
		}
		for _, re := range a.res {
			if re.get().Match(target) {
				return true
			}
		}
		if len(a.stopwords) > 0 {
			low := strings.ToLower(string(secret))
			for _, w := range a.stopwords {
				if strings.Contains(low, w) {
					return true
				}
			}
		}
	}
	return false
}

// shannon is the Shannon entropy of s in bits per byte.
func shannon(s []byte) float64 {
	if len(s) == 0 {
		return 0
	}
	var counts [256]int
	for _, c := range s {
		counts[c]++
	}
	n := float64(len(s))
	var h float64
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// plausibleSecret reports whether a value looks generated rather than
// written: letters and digits mixed with some variety (hunter2hunter2…), or
// a high character entropy (random letters). Words and identifiers
// ("multiplication", "encodeUserPassword") are not secrets.
func plausibleSecret(v []byte) bool {
	var letter, digit bool
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		}
	}
	if len(v) <= 19 && hexConstant.Match(v) {
		return false // -0x3f879678: a constant in code
	}
	h := shannon(v)
	return letter && digit && h >= 2.5 || h >= 4
}

// keywordAutomaton is an Aho–Corasick automaton over the rules' keywords,
// ASCII case folded, as a dense table: one pass over a file finds every
// line that a rule could match.
type keywordAutomaton struct {
	class  [256]uint8
	shift  uint
	next   []uint16 // state<<shift | class → next state | acceptBit
	accept [][]uint16
	// fold marks the states where a K or ſ ends (foldMarks): accepting
	// states without rules, whose hits tell scan which lines hold one.
	fold []bool
	// kwTab is next for the lanes (kwlanes.go).
	kwTab
	// scratch holds *kwScratch: the hit buffers of a scan, reused.
	scratch sync.Pool
	// recs holds *kwRecs: the lanes' records, reused.
	recs sync.Pool
}

// kwScratch is one scan's hit buffers: the lanes' and the merged hits.
type kwScratch struct {
	found [lanes][]kwHit
	hits  []kwHit
	// folds are where a K or ſ ends (scan).
	folds []int
}

// maxScratchHits bounds the hit buffers kept for reuse.
const maxScratchHits = 1 << 14

const acceptBit = 0x8000

// foldMarks are the characters foldsToASCII looks for, which the keyword
// automaton finds with the keywords (keywordAutomaton.fold).
var foldMarks = [...]string{"\u212a", "\u017f"}

func newKeywordAutomaton(keywords []string, rules [][]uint16) *keywordAutomaton {
	return buildTrie(keywords, rules).hotFirst()
}

// buildKeywordAutomaton is newKeywordAutomaton with the states numbered
// as the keywords were added.
func buildKeywordAutomaton(keywords []string, rules [][]uint16) *keywordAutomaton {
	a := buildTrie(keywords, rules)
	a.fillTab(a.maxLen)
	return a
}

// buildTrie is buildKeywordAutomaton without the lanes' table (hotFirst,
// which renumbers the states, makes its own).
func buildTrie(keywords []string, rules [][]uint16) *keywordAutomaton {
	a := &keywordAutomaton{}
	// The keywords, then the marks (keywordAutomaton.fold), whose bytes
	// have classes too.
	all := slices.Concat(keywords, foldMarks[:])
	nc := 1 // class 0: bytes in no keyword
	for _, k := range all {
		for i := 0; i < len(k); i++ {
			c := k[i]
			if a.class[c] == 0 {
				a.class[c] = uint8(nc)
				if 'a' <= c && c <= 'z' {
					a.class[c-'a'+'A'] = uint8(nc)
				}
				nc++
			}
		}
	}
	for 1<<a.shift < nc {
		a.shift++
	}
	width := 1 << a.shift
	// The trie: goto transitions (0 = none, since no edge leads to the
	// root), a row of width per state.
	states := 1
	for _, k := range all {
		states += len(k)
	}
	gotos := make([]uint16, width, states*width)
	outs := make([][]uint16, 1, states)
	folds := make([]bool, 1, states)
	for ki, k := range all {
		s := 0
		for i := 0; i < len(k); i++ {
			c := int(a.class[k[i]])
			if gotos[s*width+c] == 0 {
				gotos = gotos[:len(gotos)+width] // zero: made so, never written
				outs, folds = append(outs, nil), append(folds, false)
				gotos[s*width+c] = uint16(len(outs) - 1)
			}
			s = int(gotos[s*width+c])
		}
		if ki < len(keywords) {
			outs[s] = append(outs[s], rules[ki]...)
		} else {
			folds[s] = true
		}
	}
	if len(outs) >= acceptBit {
		panic("workspace: too many secret keywords") // the tables are ours; a test builds them
	}
	// Breadth first: failure links and the full transition table.
	a.next = make([]uint16, len(gotos))
	fail := make([]int, len(outs))
	queue := []int{}
	for c := 0; c < width; c++ {
		if t := int(gotos[c]); t != 0 {
			a.next[c] = uint16(t)
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, r := range outs[fail[s]] {
			if !slices.Contains(outs[s], r) {
				outs[s] = append(outs[s], r)
			}
		}
		if folds[fail[s]] {
			folds[s] = true
		}
		for c := 0; c < width; c++ {
			t := int(gotos[s*width+c])
			if t == 0 {
				a.next[s<<a.shift|c] = a.next[fail[s]<<a.shift|c] &^ acceptBit
				continue
			}
			fail[t] = int(a.next[fail[s]<<a.shift|c] &^ acceptBit)
			a.next[s<<a.shift|c] = uint16(t)
			queue = append(queue, t)
		}
	}
	// Mark transitions into accepting states.
	accepting := make([]bool, len(outs))
	for s := range outs {
		accepting[s] = len(outs[s]) > 0 || folds[s]
	}
	for i, t := range a.next {
		if accepting[t&^acceptBit] {
			a.next[i] = t | acceptBit
		}
	}
	a.accept, a.fold = outs, folds
	for _, k := range keywords {
		a.maxLen = max(a.maxLen, len(k))
	}
	return a
}

// hotFirst renumbers the states breadth first: the root and the states of
// the keywords' first bytes, which nearly every byte of a text visits,
// share the first rows of the table and stay in the CPU's nearest cache
// (numbered as the keywords were added, the rows a text visits were
// spread over the whole table, and every step of the automaton waited for
// a farther cache).
func (a *keywordAutomaton) hotFirst() *keywordAutomaton {
	width := 1 << a.shift
	states := len(a.accept)
	order := make([]int, 0, states)
	seen := make([]bool, states)
	order, seen[0] = append(order, 0), true
	for i := 0; i < len(order); i++ {
		s := order[i]
		for c := range width {
			if t := int(a.next[s<<a.shift|c] &^ acceptBit); !seen[t] {
				seen[t] = true
				order = append(order, t)
			}
		}
	}
	id := make([]uint16, states)
	for i, s := range order {
		id[s] = uint16(i)
	}
	b := &keywordAutomaton{class: a.class, shift: a.shift, next: make([]uint16, len(order)*width), accept: make([][]uint16, len(order)), fold: make([]bool, len(order))}
	for i, s := range order {
		for c := range width {
			t := a.next[s<<a.shift|c]
			b.next[i<<a.shift|c] = id[t&^acceptBit] | t&acceptBit
		}
		b.accept[i] = a.accept[s]
		b.fold[i] = a.fold[s]
	}
	b.fillTab(a.maxLen)
	return b
}

// kwHit is where a keyword ends in the text, with the automaton's state.
type kwHit struct {
	pos   int
	state uint16
}

// hits appends the positions where keywords end in data, in order.
func (a *keywordAutomaton) hits(dst []kwHit, data []byte) []kwHit {
	var found [lanes][]kwHit
	return a.lanesHits(dst, data, &found)
}

// scanSecrets calls found with the bounds (trailing \r excluded) and rule
// name of every line of data that holds a secret, in order, until found
// returns false.
func scanSecrets(data []byte, found func(start, end int, name string) bool) {
	secretRules().scan(data, found)
}

// scan is scanSecrets with this rule set.
func (rs *ruleSet) scan(data []byte, found func(start, end int, name string) bool) {
	a := rs.kw
	var pending []uint16
	var lineHits []ruleHit // the line's admitted hits
	var at []int
	lineStart, lineEnd := 0, -1
	flush := func() bool {
		if len(pending) == 0 {
			return true
		}
		line := bytes.TrimRight(data[lineStart:lineEnd], "\r")
		slices.Sort(pending) // our rules first, in table order
		ascii := -1          // whether the line is ASCII, once asked
		for _, id := range pending {
			r := &rs.rules[id]
			if r.window > 0 && len(line) > longLine*(2*r.window+3) {
				if ascii < 0 {
					ascii = 1
					if hasHighByte(line) {
						ascii = 0
					}
				}
				if ascii == 1 {
					at = at[:0]
					for _, h := range lineHits {
						if h.id == id {
							at = append(at, h.end)
						}
					}
					if r.windowsMayMatch(data, lineStart, line, at) && r.findLine(line) {
						return found(lineStart, lineStart+len(line), r.name)
					}
					continue
				}
			}
			if r.matchLine(line) {
				return found(lineStart, lineStart+len(line), r.name)
			}
		}
		return true
	}
	sc, _ := a.scratch.Get().(*kwScratch)
	if sc == nil {
		sc = &kwScratch{}
	}
	sc.hits = a.lanesHits(sc.hits[:0], data, &sc.found)
	defer func() {
		if cap(sc.hits) <= maxScratchHits && cap(sc.folds) <= maxScratchHits {
			a.scratch.Put(sc)
		}
	}()
	// A hit's line is found only when a rule admits the hit: most hits
	// in code are a guarded rule's common keyword (os. for "s.", key for
	// "ey") that its guard refuses. Whether the line has a K or ſ
	// (highLine, foldsToASCII) the automaton found with the keywords:
	// where each ends (folds, in order; content without one has no such
	// line).
	folds := sc.folds[:0]
	for _, h := range sc.hits {
		if a.fold[h.state] {
			folds = append(folds, h.pos)
		}
	}
	sc.folds = folds
	hitAt, high, highAt, next := 0, false, -1, 0 // the hit asked about; whether the line starting at highAt has a K or ſ; the first fold not before it
	highLine := func() bool {
		if len(folds) == 0 {
			return false
		}
		if s, e := lineBounds(data, hitAt); s != highAt {
			for next < len(folds) && folds[next] < s {
				next++
			}
			high, highAt = next < len(folds) && folds[next] < e, s
		}
		return high
	}
	for _, h := range sc.hits {
		hitAt = h.pos
		for _, id := range a.accept[h.state] {
			if !rs.admits(id, data, h.pos, highLine) {
				continue
			}
			if h.pos > lineEnd {
				if !flush() {
					return
				}
				pending, lineHits = pending[:0], lineHits[:0]
				lineStart, lineEnd = lineBounds(data, h.pos)
			}
			if !slices.Contains(pending, id) {
				pending = append(pending, id)
			}
			lineHits = append(lineHits, ruleHit{id, h.pos})
		}
	}
	flush()
}

// ruleHit is a keyword hit (its end) a rule admitted.
type ruleHit struct {
	id  uint16
	end int
}

// admits reports whether a keyword hit ending at data[end] sends its line
// to rule id's regex: the rule's guard, when it has one, holds there, or
// the line has a K or ſ (highLine, foldsToASCII; under (?i), K and ſ match
// a regex's k and s where the automaton sees no keyword, so another
// keyword's hit must still send the line to the regex, as without guards).
func (rs *ruleSet) admits(id uint16, data []byte, end int, highLine func() bool) bool {
	near := rs.rules[id].near
	return near == nil || near(data, end) || highLine()
}

// foldsToASCII reports whether b holds one of the two characters that
// (?i) matches to an ASCII letter: the Kelvin sign K (k) and the long s ſ
// (s); no other character folds to ASCII (TestOnlyKelvinAndLongSFold).
// Other non-ASCII text (minified JavaScript, translations) keeps the
// guards: its lines were sent to every regex a keyword named, which on a
// line of 100 KB costs tens of milliseconds each.
func foldsToASCII(b []byte) bool {
	return bytes.Contains(b, []byte("K")) || bytes.Contains(b, []byte("ſ"))
}

// hasHighByte reports a byte ≥ 0x80 in b (eight at a time).
func hasHighByte(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return true
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

// lineBounds returns the start and end (the newline or len) of the line
// holding data[at].
func lineBounds(data []byte, at int) (int, int) {
	start := bytes.LastIndexByte(data[:at], '\n') + 1
	end := bytes.IndexByte(data[at:], '\n')
	if end < 0 {
		return start, len(data)
	}
	return start, at + end
}
