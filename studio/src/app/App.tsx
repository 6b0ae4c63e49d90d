// The Studio's pages, each at a URL that can be bookmarked and shared; pages
// load on first visit (the SQL editor's CodeMirror only when it is opened).
import { lazy } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { ToastProvider } from './toasts.tsx';
import { SessionProvider } from './session.tsx';
import { Shell } from './Shell.tsx';
import SignIn from '../auth/SignIn.tsx';
import Setup from '../auth/Setup.tsx';
import AcceptInvite from '../auth/AcceptInvite.tsx';

const TableEditor = lazy(() => import('../pages/tables/TableEditor.tsx'));
const SqlEditor = lazy(() => import('../pages/sql/SqlEditor.tsx'));
const DatabasePage = lazy(() => import('../pages/database/DatabasePage.tsx'));
const Users = lazy(() => import('../pages/auth/Users.tsx'));
const UserDetail = lazy(() => import('../pages/auth/UserDetail.tsx'));
const AuthSettings = lazy(() => import('../pages/auth/AuthSettings.tsx'));
const SigningKeys = lazy(() => import('../pages/auth/SigningKeys.tsx'));
const OAuthApps = lazy(() => import('../pages/auth/OAuthApps.tsx'));
const StoragePage = lazy(() => import('../pages/storage/StoragePage.tsx'));
const RealtimeInspector = lazy(() => import('../pages/realtime/RealtimeInspector.tsx'));
const WorkflowList = lazy(() => import('../pages/workflows/WorkflowList.tsx'));
const WorkflowEditor = lazy(() => import('../pages/workflows/WorkflowEditor.tsx'));
const AgentList = lazy(() => import('../pages/agents/AgentList.tsx'));
const AgentPage = lazy(() => import('../pages/agents/AgentPage.tsx'));
const Sources = lazy(() => import('../pages/knowledge/Sources.tsx'));
const SourceDetail = lazy(() => import('../pages/knowledge/SourceDetail.tsx'));
const KnowledgeBases = lazy(() => import('../pages/knowledge/KnowledgeBases.tsx'));
const KnowledgeBaseDetail = lazy(() => import('../pages/knowledge/KnowledgeBaseDetail.tsx'));
const UsagePage = lazy(() => import('../pages/ai/UsagePage.tsx'));
const ProviderKeys = lazy(() => import('../pages/ai/ProviderKeys.tsx'));
const SettingsRegistry = lazy(() => import('../pages/ai/SettingsRegistry.tsx'));
const ToolsPage = lazy(() => import('../pages/ai/ToolsPage.tsx'));
const Observe = lazy(() => import('../pages/observe/Observe.tsx'));
const WorkflowRuns = lazy(() => import('../pages/runs/WorkflowRuns.tsx'));
const AgentRuns = lazy(() => import('../pages/runs/AgentRuns.tsx'));
const OrchestrationList = lazy(() => import('../pages/orchestrations/OrchestrationList.tsx'));
const OrchestrationPage = lazy(() => import('../pages/orchestrations/OrchestrationPage.tsx'));
const RunPage = lazy(() => import('../pages/runs/RunPage.tsx'));
const ApiDocs = lazy(() => import('../pages/docs/ApiDocs.tsx'));
const Operators = lazy(() => import('../pages/settings/Operators.tsx'));
const AuditLog = lazy(() => import('../pages/settings/AuditLog.tsx'));

export function App() {
  return (
    <ToastProvider>
      <SessionProvider>
        <BrowserRouter>
          <Routes>
            <Route path="/sign-in" element={<SignIn />} />
            <Route path="/setup" element={<Setup />} />
            <Route path="/invite" element={<AcceptInvite />} />
            <Route element={<Shell />}>
              <Route index element={<Navigate to="/tables" replace />} />
              <Route path="tables/:schema?/:table?" element={<TableEditor />} />
              <Route path="sql/:snippet?" element={<SqlEditor />} />
              <Route path="database" element={<Navigate to="/database/advisors" replace />} />
              <Route path="database/:section" element={<DatabasePage />} />
              <Route path="auth" element={<Navigate to="/auth/users" replace />} />
              <Route path="auth/users" element={<Users />} />
              <Route path="auth/users/:id" element={<UserDetail />} />
              <Route path="auth/settings" element={<AuthSettings />} />
              <Route path="auth/signing-keys" element={<SigningKeys />} />
              <Route path="auth/oauth-apps" element={<OAuthApps />} />
              <Route path="storage/:bucket?/*" element={<StoragePage />} />
              <Route path="realtime" element={<RealtimeInspector />} />
              <Route path="workflows" element={<WorkflowList />} />
              <Route path="workflows/:id" element={<WorkflowEditor />} />
              <Route path="workflows/:id/runs" element={<WorkflowRuns />} />
              <Route path="agents" element={<AgentList />} />
              <Route path="agents/:id" element={<AgentPage />} />
              <Route path="agents/:id/runs" element={<AgentRuns />} />
              <Route path="agents/:id/sessions/:session" element={<AgentPage />} />
              <Route path="orchestrations" element={<OrchestrationList />} />
              <Route path="orchestrations/:id" element={<OrchestrationPage />} />
              <Route path="orchestrations/:id/sessions/:session" element={<OrchestrationPage />} />
              <Route path="knowledge" element={<Navigate to="/knowledge/sources" replace />} />
              <Route path="knowledge/sources" element={<Sources />} />
              <Route path="knowledge/sources/:id" element={<SourceDetail />} />
              <Route path="knowledge/bases" element={<KnowledgeBases />} />
              <Route path="knowledge/bases/:id" element={<KnowledgeBaseDetail />} />
              <Route path="ai" element={<Navigate to="/ai/usage" replace />} />
              <Route path="ai/usage" element={<UsagePage />} />
              <Route path="ai/keys" element={<ProviderKeys />} />
              <Route path="ai/settings" element={<SettingsRegistry />} />
              <Route path="ai/tools" element={<ToolsPage />} />
              <Route path="observe" element={<Observe />} />
              <Route path="runs/:kind/:owner/:id?" element={<RunPage />} />
              <Route path="api-docs/:schema?/:name?" element={<ApiDocs />} />
              <Route path="settings" element={<Navigate to="/settings/operators" replace />} />
              <Route path="settings/operators" element={<Operators />} />
              <Route path="settings/audit" element={<AuditLog />} />
              <Route path="*" element={<p>No page here.</p>} />
            </Route>
          </Routes>
        </BrowserRouter>
      </SessionProvider>
    </ToastProvider>
  );
}
