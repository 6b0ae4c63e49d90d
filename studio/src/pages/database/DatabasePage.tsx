// Database (/database/<section>): what a DBA reads and changes beyond rows.
import { NavLink, useParams } from 'react-router';
import { Advisors } from './Advisors.tsx';
import { CatalogueList } from './CatalogueList.tsx';
import { CronJobs } from './CronJobs.tsx';
import { Extensions } from './Extensions.tsx';
import { Functions } from './Functions.tsx';
import { Policies } from './Policies.tsx';
import { Queues } from './Queues.tsx';

const SECTIONS: Array<[string, string]> = [
  ['advisors', 'Advisors'], ['policies', 'Policies'], ['indexes', 'Indexes'], ['triggers', 'Triggers'], ['functions', 'Functions'],
  ['extensions', 'Extensions'], ['cron', 'Cron'], ['queues', 'Queues'], ['roles', 'Roles'], ['publications', 'Publications'], ['migrations', 'Migrations'],
];

export default function DatabasePage() {
  const { section = 'advisors' } = useParams();
  return (
    <div className="split">
      <nav className="subnav" aria-label="Database">
        <ul className="plain-list">
          {SECTIONS.map(([id, label]) => <li key={id}><NavLink to={`/database/${id}`} className={({ isActive }) => (isActive ? 'list-link active' : 'list-link')}>{label}</NavLink></li>)}
        </ul>
      </nav>
      <div className="split-main">
        {section === 'advisors' ? <Advisors />
          : section === 'policies' ? <Policies />
          : section === 'functions' ? <Functions />
          : section === 'extensions' ? <Extensions />
          : section === 'cron' ? <CronJobs />
          : section === 'queues' ? <Queues />
          : section === 'indexes' || section === 'triggers' || section === 'roles' || section === 'publications' || section === 'migrations' ? <CatalogueList section={section} />
          : <p>No such section.</p>}
      </div>
    </div>
  );
}
