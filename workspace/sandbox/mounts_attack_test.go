package sandbox

import (
	"path/filepath"
	"strings"
	"testing"
)

// perlNS runs code in a perl that first enters a user and a mount
// namespace of its own with a raw unshare(2): without an exec, it keeps
// every capability there (unshare -Urm cannot write its uid map in the
// sandbox, and an exec without one drops them). show(path) prints the
// file's content.
func perlNS(code string) string {
	return `perl -e 'sub show { open(my $f, "<", $_[0]) or return print "open $_[0]: $!\n"; print <$f>; }
sub chk { print "syscall $_[0]: $!\n" if $_[1] != 0 }
$u = syscall(272, 0x10000000); $m = syscall(272, 0x20000); print "unshare: $!\\n" if $u || $m;
` + code + `'`
}

// TestMasksSurviveMountGames (redteam s10): in namespaces of its own, a
// command cannot take a mask off or see under it, whoever made the masks
// (bwrap or the mask helper): not by unmounting it or its pin (lazily
// too: the kernel locks mounts a less privileged namespace inherits),
// moving it, mounting over a parent and reading through a descriptor
// opened before, through /proc, or through a hard link. Each attack is
// shown to read the file when it is not masked.
func TestMasksSurviveMountGames(t *testing.T) {
	const secret = "deep-secret-7731"
	key := "deep/a/b/key.pem"
	for _, mode := range []struct {
		name   string
		helper helperMode
	}{{"bwrap", helperNever}, {"helper", helperAlways}} {
		t.Run(mode.name, func(t *testing.T) {
			f, masked := helperFixture(t)
			mustWrite(t, filepath.Join(f.dir, key), "-----BEGIN PRIVATE KEY----- "+secret+"\n")
			masked = append(masked, key)
			for _, tc := range []struct{ name, command string }{
				{"umount the mask", perlNS(`my $p = "` + key + `"; chk("umount", syscall(166, $p, 0)); chk("umount -l", syscall(166, $p, 2)); show($p);`)},
				{"umount the pins", perlNS(`for my $d ("deep/a/b", "deep/a", "deep") { my $p = $d; chk("umount -l $p", syscall(166, $p, 2)); } show("` + key + `");`)},
				{"move the mask away", "touch /tmp/k; " + perlNS(`my ($s, $t) = ("`+key+`", "/tmp/k"); chk("mount --move", syscall(165, $s, $t, 0, 8192, 0)); show($s);`)},
				{"mount over a parent, read through an open folder", "mkdir -p /tmp/t; " + perlNS(`open(my $o, "<", "deep/a") or die; my ($n, $t, $ty) = ("none", "deep", "tmpfs"); chk("mount tmpfs", syscall(165, $n, $t, $ty, 0, 0)); show("deep/a/b/key.pem"); show("/proc/self/fd/" . fileno($o) . "/b/key.pem");`)},
				{"through /proc/1/root", "cat /proc/1/root\"$PWD\"/" + key + "; cat /proc/self/root\"$PWD\"/" + key},
				{"a hard link", "ln " + key + " stolen && cat stolen"},
			} {
				res := f.run(t, Spec{Dir: f.dir, Masked: masked, helper: mode.helper, Command: tc.command + " 2>&1; true"})
				if strings.Contains(res.Stdout, secret) || strings.Contains(res.Stderr, secret) {
					t.Errorf("%s: the command read the masked file: %s", tc.name, res.Stdout)
				}
				t.Logf("%s: %s", tc.name, res.Stdout)
				// The control: unmasked, the same command reads the file
				// (the attack works, the mask alone stops it).
				res = f.run(t, Spec{Dir: f.dir, Masked: masked[:len(masked)-1], helper: mode.helper, Command: tc.command + " 2>&1; rm -f stolen; true"})
				if !strings.Contains(res.Stdout, secret) {
					t.Errorf("%s: unmasked, the command did not read the file either: %s", tc.name, res.Stdout)
				}
			}
		})
	}
}
