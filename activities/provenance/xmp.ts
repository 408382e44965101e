/**
 * The provenance of one output as an XMP packet: what exiftool, Adobe's tools and asset libraries
 * read. IPTC's digital source type says the file was made by a trained model (the mark the EU AI
 * Act's article 50 asks for); IPTC's AI fields (2023.2) name the model and the prompt; what only
 * mediaflow knows (campaign, plan digest, prediction, parent file, review) is in a namespace of its
 * own, so a reader that does not know it still shows it, under XMP-mediaflow.
 */
export const TRAINED_ALGORITHMIC_MEDIA =
  'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';
/** IPTC's source type of a file edited from a trained model's output (a crop, a caption, a cut). */
export const COMPOSITE_WITH_TRAINED_ALGORITHMIC_MEDIA =
  'http://cv.iptc.org/newscodes/digitalsourcetype/compositeWithTrainedAlgorithmicMedia';
export const MEDIAFLOW_NS = 'https://github.com/mediaflow/ns/provenance/1.0/';

/** Who decided a reviewed take, and when (records/decisions.ts). */
export interface ReviewMark {
  readonly action: string;
  readonly by: string | null;
  readonly at: string;
  /** The reviewer's note, when there was one. */
  readonly note?: string;
  /** The job the decision was about: this output's own, or its parent's (a video of an approved still). */
  readonly of: 'self' | 'parent';
}

export interface Provenance {
  readonly model: string;
  /** The prompt as sent to the service (a reviewer's edited prompt when there was one). */
  readonly prompt: string | null;
  readonly campaign: string;
  /** The stored plan's digest: the spec as expanded and run. */
  readonly planDigest: string;
  readonly jobKey: string;
  readonly predictionId: string;
  /** The parent's output file (a key of the store), for a job made from another job's output. */
  readonly parentFile: string | null;
  readonly review: ReviewMark | null;
  /** When the output was made (ISO). */
  readonly createdAt: string;
  /**
   * Set on a derivative (a derive step's file made from this job's output): its step, its own key
   * and what was done, in order (derive/describe.ts). The rest still names the generation it is of.
   */
  readonly derived?: Derived;
}

export interface Derived {
  readonly step: string;
  readonly key: string;
  /** What was done, in words (derive/describe.ts). */
  readonly operations: readonly string[];
  /** C2PA's name of each operation's action, in the same order (`c2pa.cropped`, ...). */
  readonly actions: readonly string[];
}

/** A complete `x:xmpmeta` document, UTF-8, with no packet wrapper (a sidecar and an iTXt need none). */
export function xmpPacket(provenance: Provenance): string {
  const p = provenance;
  const fields = [
    element(
      'Iptc4xmpExt:DigitalSourceType',
      p.derived ? COMPOSITE_WITH_TRAINED_ALGORITHMIC_MEDIA : TRAINED_ALGORITHMIC_MEDIA,
    ),
    element('Iptc4xmpExt:AISystemUsed', p.model),
    p.prompt === null ? '' : element('Iptc4xmpExt:AIPromptInformation', p.prompt),
    element('xmp:CreatorTool', 'mediaflow'),
    element('xmp:CreateDate', p.createdAt),
    element('mediaflow:Campaign', p.campaign),
    element('mediaflow:PlanDigest', p.planDigest),
    element('mediaflow:JobKey', p.jobKey),
    element('mediaflow:PredictionID', p.predictionId),
    p.parentFile === null ? '' : element('mediaflow:ParentFile', p.parentFile),
    ...(p.derived
      ? [
          element('mediaflow:DerivedBy', p.derived.step),
          element('mediaflow:DerivativeKey', p.derived.key),
          element('mediaflow:Operations', p.derived.operations.join('; ')),
        ]
      : []),
    ...(p.review === null
      ? []
      : [
          element('mediaflow:ReviewDecision', p.review.action),
          element('mediaflow:ReviewOf', p.review.of),
          p.review.by === null ? '' : element('mediaflow:ReviewedBy', p.review.by),
          element('mediaflow:ReviewedAt', p.review.at),
          p.review.note === undefined ? '' : element('mediaflow:ReviewNote', p.review.note),
        ]),
  ].filter(Boolean);
  return [
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">',
    ' <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    '  <rdf:Description rdf:about=""',
    '    xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"',
    '    xmlns:xmp="http://ns.adobe.com/xap/1.0/"',
    `    xmlns:mediaflow="${MEDIAFLOW_NS}">`,
    ...fields.map((field) => `   ${field}`),
    '  </rdf:Description>',
    ' </rdf:RDF>',
    '</x:xmpmeta>',
    '',
  ].join('\n');
}

function element(name: string, value: string): string {
  return `<${name}>${escapeXml(value)}</${name}>`;
}

/**
 * Prompts are the user's text: escaped so no prompt can close an element or add one, and
 * stripped of the control characters XML 1.0 cannot hold at all (a reader would reject the packet).
 */
export function escapeXml(text: string): string {
  return [...text]
    .filter(allowedInXml)
    .join('')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** XML 1.0's Char production: tab, line feed, carriage return and the printable planes. */
function allowedInXml(char: string): boolean {
  const code = char.codePointAt(0)!;
  if (code < 0x20) return code === 0x09 || code === 0x0a || code === 0x0d;
  return code !== 0xfffe && code !== 0xffff;
}
