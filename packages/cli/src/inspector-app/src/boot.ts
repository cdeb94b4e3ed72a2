/** The page's entry (bundled as app.js): starts the inspector in this document. */
import { startInspector } from './main.js';

startInspector();
