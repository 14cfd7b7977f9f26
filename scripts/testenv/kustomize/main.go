// kimops-kustomize: builds one kustomization directory and prints the result as multi-document YAML,
// like `kustomize build <dir>`. The integration tests need the deploy/ overlays rendered exactly as
// kustomize renders them, and CI machines need not have kubectl or a kustomize binary: this wrapper is
// built from the Go module proxy by build.sh like the plane's other binaries.
package main

import (
	"fmt"
	"os"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

func main() {
	if len(os.Args) != 2 || os.Args[1] == "-h" || os.Args[1] == "--help" {
		fmt.Fprintln(os.Stderr, "usage: kimops-kustomize <kustomization dir>")
		os.Exit(2)
	}
	// The defaults of `kustomize build`: files may only be loaded from inside the kustomization's root
	// (resources naming other kustomizations are still allowed), and no plugins.
	options := krusty.MakeDefaultOptions()
	resources, err := krusty.MakeKustomizer(options).Run(filesys.MakeFsOnDisk(), os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "kimops-kustomize: %v\n", err)
		os.Exit(1)
	}
	out, err := resources.AsYaml()
	if err != nil {
		fmt.Fprintf(os.Stderr, "kimops-kustomize: %v\n", err)
		os.Exit(1)
	}
	if _, err := os.Stdout.Write(out); err != nil {
		os.Exit(1)
	}
}
