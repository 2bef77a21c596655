// Managed code stripping (IL2CPP, and Mono with stripping on) removes what no scene or
// script of the build references. Keel's components can be reached otherwise (from
// AssetBundles, Addressables or by type name) and its adapters through versionDefines, so
// the package keeps its assemblies whole. Unity ignores a link.xml inside a package, so
// the package hands its link.xml to the linker at build time through IUnityLinkerProcessor.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System.IO;
using UnityEditor.Build;
using UnityEditor.Build.Reporting;
using UnityEditor.UnityLinker;

namespace Keel.Editor
{
    internal sealed class KeelLinkerProcessor : IUnityLinkerProcessor
    {
        /// <summary>
        /// The package's assemblies; the water adapters exist only where their water package
        /// is installed, hence ignoreIfMissing.
        /// </summary>
        internal const string LinkXml =
            "<linker>\n" +
            "  <assembly fullname=\"Keel.Runtime\" preserve=\"all\"/>\n" +
            "  <assembly fullname=\"Keel.Water.Hdrp\" preserve=\"all\" ignoreIfMissing=\"1\"/>\n" +
            "  <assembly fullname=\"Keel.Water.Crest4\" preserve=\"all\" ignoreIfMissing=\"1\"/>\n" +
            "  <assembly fullname=\"Keel.Water.Crest5\" preserve=\"all\" ignoreIfMissing=\"1\"/>\n" +
            "</linker>\n";

        public int callbackOrder { get { return 0; } }

        public string GenerateAdditionalLinkXmlFile(BuildReport report, UnityLinkerBuildPipelineData data)
        {
            // Temp/ is the project's scratch folder, emptied when the editor closes.
            string path = Path.GetFullPath(Path.Combine("Temp", "Keel", "link.xml"));
            Directory.CreateDirectory(Path.GetDirectoryName(path));
            File.WriteAllText(path, LinkXml);
            return path;
        }
    }
}
