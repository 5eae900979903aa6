package vnncomp

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrShard reports a shard that is malformed or out of range, whether it
// came from --shard or from a scheduler's environment variables.
var ErrShard = errors.New("bad shard")

// Shard selects the rows one process runs when the instances are spread
// over N processes: row i (0-based, in file order) belongs to shard K of
// N iff
//
//	i mod N == K,     0 <= K < N.
//
// Every row belongs to exactly one shard, the shards differ in size by at
// most one row, and each shard's rows run in file order. The zero Shard is
// not valid; All is the one shard holding every row.
type Shard struct {
	K, N int
}

// All is the shard 0/1, holding every row.
var All = Shard{K: 0, N: 1}

// Has reports whether row i belongs to s.
func (s Shard) Has(i int) bool { return i%s.N == s.K }

// String returns "K/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// Validate reports whether 0 <= K < N.
func (s Shard) Validate() error {
	if s.N < 1 {
		return shardErrorf("shard %s: the number of shards must be at least 1", s)
	}
	if s.K < 0 || s.K >= s.N {
		return shardErrorf("shard %s: K must be in [0, %d)", s, s.N)
	}
	return nil
}

// ParseShard reads "K/N", for example "3/10", the fourth of ten shards.
func ParseShard(text string) (Shard, error) {
	k, n, ok := strings.Cut(strings.TrimSpace(text), "/")
	if !ok {
		return Shard{}, shardErrorf("shard %q is not of the form K/N", text)
	}
	kk, err1 := strconv.Atoi(strings.TrimSpace(k))
	nn, err2 := strconv.Atoi(strings.TrimSpace(n))
	if err1 != nil || err2 != nil {
		return Shard{}, shardErrorf("shard %q is not of the form K/N with integers K and N", text)
	}
	s := Shard{K: kk, N: nn}
	return s, s.Validate()
}

// PickShard returns the shard of text (ParseShard) when it is not empty,
// else the shard of the environment (ShardFromEnv), from naming its
// variable, else All with from "".
func PickShard(text string, getenv func(string) string) (s Shard, from string, err error) {
	if text != "" {
		s, err := ParseShard(text)
		return s, "", err
	}
	s, from, ok, err := ShardFromEnv(getenv)
	if !ok && err == nil {
		return All, "", nil
	}
	return s, from, err
}

// Environment variables ShardFromEnv reads.
const (
	// EnvSlurmID is the index of a Slurm array task (sbatch --array).
	EnvSlurmID = "SLURM_ARRAY_TASK_ID"
	// EnvSlurmCount is the number of tasks in the Slurm array.
	EnvSlurmCount = "SLURM_ARRAY_TASK_COUNT"
	// EnvSlurmMin is the smallest index of the Slurm array.
	EnvSlurmMin = "SLURM_ARRAY_TASK_MIN"
	// EnvSlurmStep is the step of the Slurm array's index range.
	EnvSlurmStep = "SLURM_ARRAY_TASK_STEP"
	// EnvK8sIndex is the completion index of a pod of a Kubernetes
	// Indexed Job (completionMode: Indexed).
	EnvK8sIndex = "JOB_COMPLETION_INDEX"
	// EnvShardCount is the number of shards of a Kubernetes Indexed Job,
	// its spec.completions. Kubernetes does not pass that number to the
	// pod, so the Job manifest sets this variable itself.
	EnvShardCount = "NNBOUND_SHARD_COUNT"
)

// ShardFromEnv finds the shard of this process from the variables a
// scheduler sets, looked up with getenv (os.Getenv, or a map in tests):
//
//   - a Slurm array task (sbatch --array=MIN-MAX[:STEP]) is shard
//     (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP
//     of SLURM_ARRAY_TASK_COUNT; the array's indices must form one range
//     (--array=0-9 or 1-19:2, not a list such as 0,3,7);
//   - a pod of a Kubernetes Indexed Job is shard JOB_COMPLETION_INDEX of
//     NNBOUND_SHARD_COUNT, which the manifest must set to its completions.
//
// It returns the shard, the name of the variable it came from, and
// ok = false (with a nil error) when neither scheduler's variables are
// set. Variables that are set but inconsistent are an error naming them.
func ShardFromEnv(getenv func(string) string) (s Shard, from string, ok bool, err error) {
	if id := getenv(EnvSlurmID); id != "" {
		s, err := slurmShard(getenv, id)
		return s, EnvSlurmID, err == nil, err
	}
	if idx := getenv(EnvK8sIndex); idx != "" {
		k, err := envInt(EnvK8sIndex, idx)
		if err != nil {
			return Shard{}, EnvK8sIndex, false, err
		}
		count := getenv(EnvShardCount)
		if count == "" {
			return Shard{}, EnvK8sIndex, false, shardErrorf("%s is set but %s is not: set it to the Job's completions in the manifest, or pass --shard $(%s)/N", EnvK8sIndex, EnvShardCount, EnvK8sIndex)
		}
		n, err := envInt(EnvShardCount, count)
		if err != nil {
			return Shard{}, EnvK8sIndex, false, err
		}
		s := Shard{K: k, N: n}
		if err := s.Validate(); err != nil {
			return Shard{}, EnvK8sIndex, false, fmt.Errorf("%w (from %s and %s)", err, EnvK8sIndex, EnvShardCount)
		}
		return s, EnvK8sIndex, true, nil
	}
	return Shard{}, "", false, nil
}

// slurmShard computes the shard of a Slurm array task whose
// SLURM_ARRAY_TASK_ID is id.
func slurmShard(getenv func(string) string, id string) (Shard, error) {
	taskID, err := envInt(EnvSlurmID, id)
	if err != nil {
		return Shard{}, err
	}
	vals := map[string]int{EnvSlurmMin: 0, EnvSlurmStep: 1}
	for _, name := range []string{EnvSlurmCount, EnvSlurmMin, EnvSlurmStep} {
		v := getenv(name)
		if v == "" {
			if name == EnvSlurmCount {
				return Shard{}, shardErrorf("%s is set but %s is not (Slurm sets both in array jobs)", EnvSlurmID, EnvSlurmCount)
			}
			continue
		}
		if vals[name], err = envInt(name, v); err != nil {
			return Shard{}, err
		}
	}
	lo, step := vals[EnvSlurmMin], vals[EnvSlurmStep]
	if step < 1 || taskID < lo || (taskID-lo)%step != 0 {
		return Shard{}, shardErrorf("%s=%d is not MIN + a multiple of STEP (%s=%d, %s=%d)", EnvSlurmID, taskID, EnvSlurmMin, lo, EnvSlurmStep, step)
	}
	s := Shard{K: (taskID - lo) / step, N: vals[EnvSlurmCount]}
	if err := s.Validate(); err != nil {
		return Shard{}, fmt.Errorf("%w (from %s=%d, %s=%d, %s=%d, %s=%d; use a range such as --array=0-9, not a list)",
			err, EnvSlurmID, taskID, EnvSlurmMin, lo, EnvSlurmStep, step, EnvSlurmCount, s.N)
	}
	return s, nil
}

// envInt parses the integer value of the environment variable name.
func envInt(name, v string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, shardErrorf("%s=%q is not an integer", name, v)
	}
	return n, nil
}
