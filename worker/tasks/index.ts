// Every graphile-worker task of the platform, by identifier. Surfaces add their
// jobs here (mail, stored bytes, extraction, embeddings, model calls).
import type { TaskList } from 'graphile-worker';

export const tasks: TaskList = {};
