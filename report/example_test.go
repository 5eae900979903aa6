package report_test

import (
	"os"

	"github.com/nnbound/nnbound/report"
)

func ExampleTable() {
	t := report.NewTable("FB", "bound", "observed", "certified")
	t.AddRow("4", report.Float(0.42391, 4), report.Float(0.38968, 4), "yes")
	t.AddRow("8", report.Float(0.028313, 4), report.Float(0.02809, 4), "yes")
	t.WriteText(os.Stdout)
	t.WriteMarkdown(os.Stdout)
	// Output:
	// FB    bound  observed  certified
	// --  -------  --------  ---------
	//  4   0.4239    0.3897  yes
	//  8  0.02831   0.02809  yes
	// |  FB |   bound | observed | certified |
	// | --: | ------: | -------: | --------- |
	// |   4 |  0.4239 |   0.3897 | yes       |
	// |   8 | 0.02831 |  0.02809 | yes       |
}
