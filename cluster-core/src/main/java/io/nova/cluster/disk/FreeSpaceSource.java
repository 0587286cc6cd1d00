package io.nova.cluster.disk;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where a {@link DiskWatcher} reads how many bytes its volume has free. Injected, so that tests drive the
 * watcher without filling a disk; a node uses {@link #of(Path)}.
 */
@FunctionalInterface
public interface FreeSpaceSource {

  /**
   * The bytes a new file on the volume could take now (what {@link FileStore#getUsableSpace()} reports:
   * free space less what the file system keeps for its superuser). Called by one thread at a time, once per
   * sample.
   *
   * @throws IOException when the volume cannot be asked (a failing disk)
   */
  long usableBytes() throws IOException;

  /**
   * The usable bytes of the volume (file store) holding {@code folder}; the volume is looked up once, so a
   * file system mounted over the folder later is not seen.
   *
   * @throws IOException if {@code folder} does not exist or its volume cannot be found
   */
  static FreeSpaceSource of(Path folder) throws IOException {
    FileStore store = Files.getFileStore(folder);
    return store::getUsableSpace;
  }
}
