// The types of build-freshness.js, for the tests that import it (test/support/process.ts).
/** The repository's root. */
export declare const root: string;
/** dist/ exists and no file of src/ was changed after it was built. */
export declare function buildIsCurrent(): boolean;
