/**
 * The replay project's setup: the workflow code bundled once, as test/global-setup.ts does for
 * the integration project, and no server (replaying a history needs none).
 */
import type { TestProject } from 'vitest/node';
import { workflowBundle } from '../worker/workflow-bundle.ts';

export default async function setup(project: TestProject): Promise<void> {
  const bundle = await workflowBundle();
  project.provide('workflowBundle', bundle.codePath);
}
