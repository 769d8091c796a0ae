package compact

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestThresholdsFor(t *testing.T) {
	tests := []struct {
		window, maxOut int
		want           Thresholds
	}{
		{200_000, 32_000, Thresholds{Window: 200_000, Effective: 180_000, Auto: 167_000, Warn: 147_000, Block: 197_000}},
		{200_000, 8_000, Thresholds{Window: 200_000, Effective: 192_000, Auto: 179_000, Warn: 159_000, Block: 197_000}},
		{200_000, 0, Thresholds{Window: 200_000, Effective: 180_000, Auto: 167_000, Warn: 147_000, Block: 197_000}},
		{30_000, 4_000, Thresholds{Window: 30_000, Effective: 26_000, Auto: 15_000, Warn: 11_250, Block: 27_000}},
		{10_000, 20_000, Thresholds{Window: 10_000, Effective: 0, Auto: 5_000, Warn: 3_750, Block: 7_000}},
		{32_768, 0, Thresholds{Window: 32_768, Effective: 12_768, Auto: 16_384, Warn: 12_288, Block: 29_768}},
		{0, 0, Thresholds{}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ThresholdsFor(tt.window, tt.maxOut)); diff != "" {
			t.Errorf("ThresholdsFor(%d, %d) (-want +got):\n%s", tt.window, tt.maxOut, diff)
		}
	}
}

func TestLevel(t *testing.T) {
	th := ThresholdsFor(200_000, 32_000) // auto 167K, warn 147K, block 197K
	tests := []struct {
		tokens int
		want   Level
	}{
		{0, LevelOK},
		{147_000, LevelOK},
		{147_001, LevelWarn},
		{167_000, LevelWarn},
		{167_001, LevelAuto},
		{196_999, LevelAuto},
		{197_000, LevelBlocked},
		{250_000, LevelBlocked},
	}
	for _, tt := range tests {
		if got := th.Level(tt.tokens); got != tt.want {
			t.Errorf("Level(%d) = %v, want %v", tt.tokens, got, tt.want)
		}
	}
}
