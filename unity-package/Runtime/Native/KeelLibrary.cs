// Errors as exceptions, and the ABI check made once before the first native call.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using System.Text;

namespace Keel.Native
{
    /// <summary>A failed keel call: the status and keel_last_error_message() of the failure.</summary>
    public sealed class KeelException : Exception
    {
        public readonly KeelStatus Status;

        public KeelException(KeelStatus status, string message) : base(message) { Status = status; }
        public KeelException(string message, Exception inner) : base(message, inner) { Status = KeelStatus.KEEL_ERROR_INTERNAL; }
    }

    /// <summary>Loading and error checks around <see cref="KeelNative"/>.</summary>
    public static unsafe class KeelLibrary
    {
        private static bool s_Checked;

        /// <summary>
        /// Checks once that the native library loads and speaks the ABI these bindings were
        /// generated from: same major version, and a minor version at least the bindings'
        /// (a newer library only adds). Throws a KeelException that says what to do otherwise.
        /// </summary>
        public static void EnsureCompatible()
        {
            if (s_Checked) return;
            uint found;
            try
            {
                found = KeelNative.keel_abi_version();
            }
            catch (DllNotFoundException e)
            {
                throw new KeelException(
                    "Keel: the native library '" + KeelNative.Lib + "' was not found for this platform. The package ships " +
                    "Runtime/Plugins/<platform>/; rebuild it with `cargo xtask unity` or reinstall the release package.", e);
            }
            catch (EntryPointNotFoundException e)
            {
                throw new KeelException("Keel: the native library found is not libkeel (no keel_abi_version).", e);
            }
            uint wanted = KeelNative.KEEL_ABI_VERSION;
            if (found >> 16 != wanted >> 16 || (found & 0xffff) < (wanted & 0xffff))
            {
                throw new KeelException(KeelStatus.KEEL_ERROR_INVALID_ARGUMENT, string.Format(
                    "Keel: the native library speaks ABI {0}.{1} but the package's C# was generated for {2}.{3}; " +
                    "the plugin binaries and the scripts come from different versions. Reinstall the package " +
                    "(or run `cargo xtask unity`) so that both match.",
                    found >> 16, found & 0xffff, wanted >> 16, wanted & 0xffff));
            }
            s_Checked = true;
        }

        /// <summary>The calling thread's last keel failure, "function: reason".</summary>
        public static string LastErrorMessage()
        {
            const int capacity = 1024;
            byte* buffer = stackalloc byte[capacity];
            ulong length = (ulong)KeelNative.keel_last_error_message(buffer, (UIntPtr)capacity);
            int n = (int)Math.Min(length, (ulong)(capacity - 1));
            return n == 0 ? "" : Encoding.UTF8.GetString(buffer, n);
        }

        /// <summary>Throws a KeelException carrying keel_last_error_message() unless status is OK.</summary>
        public static void Check(KeelStatus status)
        {
            if (status != KeelStatus.KEEL_OK) throw new KeelException(status, status + ": " + LastErrorMessage());
        }

        /// <summary>The library's version string, e.g. "0.1.0".</summary>
        public static string Version
        {
            get
            {
                EnsureCompatible();
                byte* s = (byte*)KeelNative.keel_version_string();
                int n = 0;
                while (s[n] != 0) n++;
                return Encoding.UTF8.GetString(s, n);
            }
        }
    }
}
