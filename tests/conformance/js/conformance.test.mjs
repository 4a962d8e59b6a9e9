// The official Momento JS SDK against jiffy-server.
//
// One entry file on purpose: node --test runs each test file in its own
// process, and the suite must share one server for the whole run.

import { after, before } from 'node:test';

import { registerAdminPortTests } from './cases/admin-port.mjs';
import { registerAuthTests } from './cases/auth.mjs';
import { registerBatchTests } from './cases/batches.mjs';
import { registerCacheLifecycleTests } from './cases/cache-lifecycle.mjs';
import { registerConditionalWriteTests } from './cases/conditional-writes.mjs';
import { registerDictionaryTests } from './cases/dictionary.mjs';
import { registerHashCallTests } from './cases/hash-calls.mjs';
import { registerHttpApiTests } from './cases/http.mjs';
import { registerItemQueryTests } from './cases/item-queries.mjs';
import { registerLeaderboardTests } from './cases/leaderboard.mjs';
import { registerListTests } from './cases/list.mjs';
import { registerPingTests } from './cases/ping.mjs';
import { registerScalarItemTests } from './cases/scalar-items.mjs';
import { registerSetCollectionTests } from './cases/set-collection.mjs';
import { registerSizeLimitTests } from './cases/size-limits.mjs';
import { registerSortedSetTests } from './cases/sorted-set.mjs';
import { registerTopicTests } from './cases/topics.mjs';
import { registerWebhookTests } from './cases/webhooks.mjs';
import { registerFrontEndTests } from './support/front-ends.mjs';
import { Suite } from './support/suite.mjs';

const suite = new Suite();

before(() => suite.start());
after(() => suite.stop());

registerCacheLifecycleTests(suite);
registerScalarItemTests(suite);
registerConditionalWriteTests(suite);
registerHashCallTests(suite);
registerItemQueryTests(suite);
registerBatchTests(suite);
registerListTests(suite);
registerSetCollectionTests(suite);
registerDictionaryTests(suite);
registerSortedSetTests(suite);
registerLeaderboardTests(suite);
registerSizeLimitTests(suite);
registerPingTests(suite);
registerTopicTests(suite);
registerAuthTests(suite);
registerWebhookTests(suite);
registerHttpApiTests(suite);
registerAdminPortTests();
registerFrontEndTests(suite);
