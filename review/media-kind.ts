/** Whether a saved file is a picture or a video, by its extension: how a card shows it. */
export type MediaKind = 'image' | 'video';

const VIDEO = /\.(mp4|webm|mov)$/i;

export function mediaKind(file: string): MediaKind {
  return VIDEO.test(file) ? 'video' : 'image';
}
