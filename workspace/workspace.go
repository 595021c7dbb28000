// Package workspace is the workspace on disk: file access confined to a root
// directory (os.Root), the ignore rules (.gitignore, .git/info/exclude,
// .autarchignore), the sensitive-content gate and binary detection.
package workspace
