package agree

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/nnbound/nnbound/report"
)

// NewProvenance returns the provenance of a report made by the command
// line words (quoted for a POSIX shell) from the input files files, with
// the versions of nnbound and of Go.
func NewProvenance(words []string, files []File) Provenance {
	return Provenance{Command: shellQuote(words), Version: report.Version(), GoVersion: runtime.Version(), Files: files}
}

// Digests returns the files named (an empty name skipped) with their
// SHA-256, for the provenance of a report.
func Digests(names []string) ([]File, error) {
	var files []File
	for _, name := range names {
		if name == "" {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Name: filepath.Base(name), SHA256: fmt.Sprintf("%x", sha256.Sum256(b))})
	}
	return files, nil
}

// InputsDigest returns a short digest of the files' SHA-256 (12 hex
// digits), which a run's question names so that a rerun does not resume
// the log of other inputs under the same names.
func InputsDigest(files []File) string {
	digest := sha256.New()
	for _, f := range files {
		digest.Write([]byte(f.SHA256))
	}
	return fmt.Sprintf("%x", digest.Sum(nil)[:6])
}

// shellQuote joins words into a command line a POSIX shell reads back.
func shellQuote(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+") == "" {
			out[i] = w
		} else {
			out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}
