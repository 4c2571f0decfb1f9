//go:build race

package kernel_test

// raceEnabled: the race detector multiplies memory use, so RSS bounds are only checked without it.
const raceEnabled = true
