import { Navigate, NavLink, Route, Routes } from 'react-router';
import { ArchivesView } from './ArchivesView.tsx';
import { JobEditor, JobsView } from './JobsView.tsx';
import { NOISE_BASE } from './paths.ts';
import { RunsView } from './RunsView.tsx';
import './noise.css';

/** Background noise: the archive library, jobs and their runs. */
export function NoisePage() {
  return (
    <div className="noise-page">
      <h1>Noise</h1>
      <nav aria-label="Noise" className="noise-tabs">
        <ul>
          <li>
            <NavLink to={`${NOISE_BASE}/archives`}>Archive library</NavLink>
          </li>
          <li>
            <NavLink to={`${NOISE_BASE}/jobs`}>Jobs</NavLink>
          </li>
          <li>
            <NavLink to={`${NOISE_BASE}/runs`}>Runs</NavLink>
          </li>
        </ul>
      </nav>
      <Routes>
        <Route index element={<Navigate to={`${NOISE_BASE}/archives`} replace />} />
        <Route path="archives" element={<ArchivesView />} />
        <Route path="jobs" element={<JobsView />} />
        <Route path="jobs/new" element={<JobEditor />} />
        <Route path="jobs/:id" element={<JobEditor />} />
        <Route path="runs" element={<RunsView />} />
        <Route
          path="*"
          element={
            <section>
              <h2>Not found</h2>
              <p>The noise page has no such part.</p>
            </section>
          }
        />
      </Routes>
    </div>
  );
}
