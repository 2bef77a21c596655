// The thesis's FPS counter (section 2.2): 1 / Time.unscaledDeltaTime, averaged over the
// last 100 frames so that the number is readable.
// SPDX-License-Identifier: MIT OR Apache-2.0
using UnityEngine;

namespace Keel.Samples
{
    public sealed class FpsCounter : MonoBehaviour
    {
        private readonly float[] m_Samples = new float[100];
        private int m_Count, m_Next;

        /// <summary>The average of the last 100 frames' FPS.</summary>
        public float AverageFps { get; private set; }

        private void Update()
        {
            float dt = Time.unscaledDeltaTime;
            if (dt <= 0f) return;
            m_Samples[m_Next] = 1f / dt;
            m_Next = (m_Next + 1) % m_Samples.Length;
            if (m_Count < m_Samples.Length) m_Count++;
            float sum = 0f;
            for (int i = 0; i < m_Count; i++) sum += m_Samples[i];
            AverageFps = sum / m_Count;
        }

        private void OnGUI() { GUI.Label(new Rect(10, 10, 200, 24), "FPS: " + Mathf.RoundToInt(AverageFps)); }
    }
}
