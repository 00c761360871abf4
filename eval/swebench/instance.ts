// One task instance in SWE-bench's own format (the dataset's field names; FAIL_TO_PASS and
// PASS_TO_PASS are JSON-encoded strings of lists of pytest node ids, as the dataset stores them).
export interface SweBenchInstance {
  instance_id: string;
  repo: string;
  base_commit: string;
  problem_statement: string;
  patch: string;
  test_patch: string;
  FAIL_TO_PASS: string;
  PASS_TO_PASS: string;
  version: string;
  environment_setup_commit: string;
  created_at: string;
  hints_text: string;
}

/** What the miner keeps of a sound candidate: an instance still without its problem statement. */
export type MinedInstance = Omit<SweBenchInstance, 'problem_statement'> & {
  /** What the failing tests showed at base_commit + test_patch: the draft of the statement. */
  observed: string;
  /** Wall time of the two sandbox runs, ms. */
  run_ms: [number, number];
};

/** `owner__name-<short commit>`, as SWE-bench names instances. */
export function instanceId(repo: string, commit: string): string {
  return `${repo.replace('/', '__')}-${commit.slice(0, 7)}`;
}
