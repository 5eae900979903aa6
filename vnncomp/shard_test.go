package vnncomp

import (
	"errors"
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"0/1", All, true},
		{"3/10", Shard{3, 10}, true},
		{" 9 / 10 ", Shard{9, 10}, true},
		{"10/10", Shard{}, false},
		{"-1/4", Shard{}, false},
		{"0/0", Shard{}, false},
		{"1", Shard{}, false},
		{"a/b", Shard{}, false},
		{"1/2/3", Shard{}, false},
	}
	for _, tt := range tests {
		got, err := ParseShard(tt.in)
		if tt.ok != (err == nil) || (tt.ok && got != tt.want) {
			t.Errorf("ParseShard(%q) = %v, %v", tt.in, got, err)
		}
		if err != nil && !errors.Is(err, ErrShard) {
			t.Errorf("ParseShard(%q): %v is not ErrShard", tt.in, err)
		}
	}
}

// TestShardsPartitionRows checks that the shards of N cover every row
// exactly once and differ in size by at most one.
func TestShardsPartitionRows(t *testing.T) {
	for n := 1; n <= 7; n++ {
		for rows := 0; rows <= 20; rows++ {
			sizes := make([]int, n)
			for i := range rows {
				owners := 0
				for k := range n {
					if (Shard{k, n}).Has(i) {
						owners++
						sizes[k]++
					}
				}
				if owners != 1 {
					t.Fatalf("row %d of %d has %d owners among %d shards", i, rows, owners, n)
				}
			}
			for _, s := range sizes {
				if s < sizes[n-1] || s > sizes[0] || sizes[0]-sizes[n-1] > 1 {
					t.Fatalf("%d rows over %d shards: sizes %v", rows, n, sizes)
				}
			}
		}
	}
}

func TestShardFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want Shard
		from string
		msg  string // part of the error, "" for none
	}{
		{"nothing set", nil, Shard{}, "", ""},
		{"slurm 0-9", map[string]string{EnvSlurmID: "7", EnvSlurmCount: "10", EnvSlurmMin: "0"}, Shard{7, 10}, EnvSlurmID, ""},
		{"slurm 1-10", map[string]string{EnvSlurmID: "1", EnvSlurmCount: "10", EnvSlurmMin: "1", EnvSlurmMax: "10"}, Shard{0, 10}, EnvSlurmID, ""},
		{"slurm 1-7:2", map[string]string{EnvSlurmID: "5", EnvSlurmCount: "4", EnvSlurmMin: "1", EnvSlurmStep: "2"}, Shard{2, 4}, EnvSlurmID, ""},
		{"slurm without min", map[string]string{EnvSlurmID: "2", EnvSlurmCount: "3"}, Shard{2, 3}, EnvSlurmID, ""},
		{"slurm list 0,3,7", map[string]string{EnvSlurmID: "7", EnvSlurmCount: "3", EnvSlurmMin: "0"}, Shard{}, EnvSlurmID, "not a list"},
		{"slurm without count", map[string]string{EnvSlurmID: "2"}, Shard{}, EnvSlurmID, EnvSlurmCount + " is not"},
		{"slurm id off the step", map[string]string{EnvSlurmID: "2", EnvSlurmCount: "4", EnvSlurmMin: "1", EnvSlurmStep: "2"}, Shard{}, EnvSlurmID, "multiple of STEP"},
		{"slurm garbage", map[string]string{EnvSlurmID: "x", EnvSlurmCount: "4"}, Shard{}, EnvSlurmID, "not an integer"},
		{"kubernetes", map[string]string{EnvK8sIndex: "4", EnvShardCount: "5"}, Shard{4, 5}, EnvK8sIndex, ""},
		{"kubernetes without count", map[string]string{EnvK8sIndex: "4"}, Shard{}, EnvK8sIndex, "--shard $(JOB_COMPLETION_INDEX)/N"},
		{"kubernetes index too big", map[string]string{EnvK8sIndex: "5", EnvShardCount: "5"}, Shard{}, EnvK8sIndex, "K must be in [0, 5)"},
		{"slurm wins over kubernetes", map[string]string{EnvSlurmID: "1", EnvSlurmCount: "2", EnvK8sIndex: "0", EnvShardCount: "3"}, Shard{1, 2}, EnvSlurmID, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, from, ok, err := ShardFromEnv(func(k string) string { return tt.env[k] })
			if tt.msg != "" {
				if ok || !errors.Is(err, ErrShard) || !strings.Contains(err.Error(), tt.msg) || from != tt.from {
					t.Fatalf("got %v from %q, ok %v, err %v; want an ErrShard with %q", got, from, ok, err, tt.msg)
				}
				return
			}
			if err != nil || got != tt.want || from != tt.from || ok != (tt.from != "") {
				t.Fatalf("got %v from %q, ok %v, err %v; want %v from %q", got, from, ok, err, tt.want, tt.from)
			}
		})
	}
}

// EnvSlurmMax is set by Slurm too; ShardFromEnv does not need it.
const EnvSlurmMax = "SLURM_ARRAY_TASK_MAX"

// TestPickShard checks that text wins over the environment, that the
// environment gives the shard without text, and All without either.
func TestPickShard(t *testing.T) {
	env := map[string]string{EnvK8sIndex: "1", EnvShardCount: "3"}
	getenv := func(k string) string { return env[k] }
	for _, tt := range []struct {
		text   string
		getenv func(string) string
		want   Shard
		from   string
		bad    bool
	}{
		{"2/4", getenv, Shard{2, 4}, "", false},
		{"", getenv, Shard{1, 3}, EnvK8sIndex, false},
		{"", func(string) string { return "" }, All, "", false},
		{"4/4", getenv, Shard{}, "", true},
	} {
		got, from, err := PickShard(tt.text, tt.getenv)
		if tt.bad != (err != nil) || !tt.bad && (got != tt.want || from != tt.from) {
			t.Errorf("PickShard(%q) = %v from %q, error %v; want %v from %q", tt.text, got, from, err, tt.want, tt.from)
		}
	}
}
