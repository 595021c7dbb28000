//go:build !race

package workspace

const raceOn = false
