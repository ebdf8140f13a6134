;;; eglot_probe.el --- test driver: Emacs + eglot as a real holodeck-lsp client -*- lexical-binding: t -*-
;; Run with `emacs --batch -q -l <config> -l eglot_probe.el' (site files load: Debian's elpa-eglot).
;; $HOLODECK_EGLOT_SPEC: a JSON file {"out", "agent", "fault": {"line", "from", "to"},
;; "quickfix": {"line", "from", "to", "fix"}, "complete": {"line", "text"},
;; "hover": [line, character], "definition": [line, character], "references": [line,
;; character], "run_at": line} (0-based lines, characters; "fix" is an action's title).
;; Writes JSON to "out": what the user would see, then kills Emacs.
(load (expand-file-name "eglot_probe_common.el" (file-name-directory load-file-name)) nil t)

;; Count the server's publishDiagnostics (eglot hands them to Flymake) and keep the last.
(defvar probe-last-published nil "The diagnostics of the server's last publish.")
(cl-defmethod eglot-handle-notification :after
  (_server (_method (eql textDocument/publishDiagnostics)) &key diagnostics &allow-other-keys)
  (setq probe-publishes (1+ probe-publishes)
        probe-last-published diagnostics))

(defun probe-wait-publish (after nonempty seconds)
  "Wait until the server published again (more than AFTER publishes) a list that is
NONEMPTY or not, and Flymake shows it. Not Flymake's list alone: it empties when the text
under its overlays is replaced, and re-shows eglot's last publish after an edit, before the
server has checked the new text."
  (probe-wait (lambda ()
                (and (> probe-publishes after)
                     (eq nonempty (> (length probe-last-published) 0))
                     (eq nonempty (and (probe-diagnostics) t))))
              seconds))

(defun probe-wait (predicate seconds)
  "Process the server's messages until PREDICATE holds or SECONDS pass."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall predicate)))

(defun probe-diagnostics ()
  "Flymake's diagnostics of the buffer, as shown: (line text type), 0-based lines."
  (mapcar (lambda (d)
            (list (cons 'line (1- (line-number-at-pos (flymake-diagnostic-beg d))))
                  (cons 'text (flymake-diagnostic-text d))
                  (cons 'type (symbol-name (flymake-diagnostic-type d)))))
          (flymake-diagnostics)))

(defun probe-goto (line &optional character)
  (goto-char (point-min))
  (forward-line line)
  (when character (forward-char character)))

(defun probe-changed ()
  "Send the edit now (eglot sends didChange after `eglot-send-changes-idle-time'; batch
Emacs is never idle)."
  (eglot--signal-textDocument/didChange))

(defvar probe-offered nil "The titles of the last code action menu.")
(defun probe-pick-action (beg end kind title)
  "What the user does with `M-x eglot-code-actions' (KIND: C-u's action kind, or nil): the
menu's item TITLE picked (or the first starting with it), executed by eglot. Returns the
executed command's answer, and the titles offered in `probe-offered'."
  (setq probe-offered nil)
  (cl-letf (((symbol-function 'completing-read)
             (lambda (_prompt items &rest _)
               (setq probe-offered (mapcar #'car items))
               (or (cl-find-if (lambda (offered) (string-prefix-p title offered))
                               (mapcar #'car items))
                   (error "no code action %S among %S" title (mapcar #'car items))))))
    (let ((last-nonmenu-event ?\r)) ; a keyboard command: the menu is read with completing-read
      (eglot-code-actions beg end kind t))))
(defun probe-finish ()
  (with-temp-file (probe-get 'out)
    (insert (json-encode probe-result)))
  (ignore-errors (eglot-shutdown (eglot-current-server)))
  (kill-emacs 0))

;; eglot-execute-command waits `jsonrpc-default-request-timeout' (10 s) for a run's answer; a
;; whole case (and Run all) takes longer than that on a busy 2-core machine.
(setq jsonrpc-default-request-timeout 120)
(setq project-find-functions (list (lambda (dir) (cons 'transient dir))))
(setq eglot-sync-connect t)

(condition-case err
    (catch 'done
      (find-file (probe-get 'agent))
      (yaml-mode)
      (apply #'eglot (eglot--guess-contact))
      (unless (probe-wait (lambda () (> probe-publishes 0)) 20)
        (probe-fail "no publishDiagnostics within 20 s")
        (throw 'done nil))
      (probe-wait (lambda () nil) 0.3)
      (probe-put 'first_diagnostics (probe-diagnostics))
      (probe-put 'server (plist-get (eglot--server-info (eglot-current-server)) :name))

      ;; An error made and undone: Flymake shows it, then no longer.
      (let* ((fault (probe-get 'fault)) (before (buffer-string)))
        (probe-goto (probe-get 'line fault))
        (search-forward (probe-get 'from fault) (line-end-position))
        (replace-match (probe-get 'to fault) t t)
        (let ((publishes probe-publishes))
          (probe-changed)
          (unless (probe-wait-publish publishes t 15)
            (probe-fail "no diagnostic for the fault within 15 s")))
        (probe-put 'fault_diagnostics (probe-diagnostics))
        (erase-buffer)
        (insert before)
        (let ((publishes probe-publishes))
          (probe-changed)
          (probe-wait-publish publishes nil 15))
        (probe-put 'fixed_diagnostics (probe-diagnostics)))

      ;; A quick fix: a misspelt matcher kind (HD125) fixed with its "Change to" action.
      (let* ((fix (probe-get 'quickfix)) (line (probe-get 'line fix)) original)
        (probe-goto line)
        (setq original (buffer-substring-no-properties (line-beginning-position)
                                                       (line-end-position)))
        (search-forward (probe-get 'from fix) (line-end-position))
        (replace-match (probe-get 'to fix) t t)
        (let ((publishes probe-publishes))
          (probe-changed)
          (unless (probe-wait-publish publishes t 15)
            (probe-fail "no diagnostic for the misspelt matcher within 15 s")))
        (probe-put 'quickfix_diagnostics (probe-diagnostics))
        (probe-goto line)
        (let ((publishes probe-publishes))
          (probe-pick-action (line-beginning-position) (line-end-position) "quickfix"
                             (probe-get 'fix fix))
          (probe-put 'quickfix_offered probe-offered)
          (probe-goto line)
          (probe-put 'quickfix_line (buffer-substring-no-properties (line-beginning-position)
                                                                    (line-end-position)))
          (probe-put 'quickfix_original original)
          (probe-changed)
          (probe-wait-publish publishes nil 15))
        (probe-put 'quickfix_after (probe-diagnostics)))

      ;; Completion of a matcher kind, typed as a half-written key under an argument.
      (let* ((complete (probe-get 'complete)) (before (buffer-string)))
        (probe-goto (probe-get 'line complete))
        (delete-region (line-beginning-position) (line-end-position))
        (insert (probe-get 'text complete))
        (probe-changed)
        (let* ((capf (eglot-completion-at-point))
               (prefix (buffer-substring-no-properties (nth 0 capf) (nth 1 capf))))
          (probe-put 'completion_prefix prefix)
          (probe-put 'completions (all-completions prefix (nth 2 capf))))
        (erase-buffer)
        (insert before)
        (probe-changed))

      ;; Hover on a `fuzzy:` key: what ElDoc shows.
      (let ((at (probe-get 'hover)))
        (probe-goto (aref at 0) (aref at 1))
        (let ((hover (jsonrpc-request (eglot-current-server) :textDocument/hover
                                      (eglot--TextDocumentPositionParams))))
          (probe-put 'hover (eglot--hover-info (plist-get hover :contents)))))

      ;; Go to definition (M-.): xref-find-definitions on an expected_tools entry jumps to the
      ;; tool's `def'; where it landed is read, then the agent's buffer is shown again.
      (let ((at (probe-get 'definition)) (agent-buffer (current-buffer)))
        (probe-goto (aref at 0) (aref at 1))
        (call-interactively #'xref-find-definitions)
        (probe-put 'definition
                   (list (cons 'file (buffer-file-name))
                         (cons 'line (1- (line-number-at-pos)))
                         (cons 'character (current-column))))
        (switch-to-buffer agent-buffer))

      ;; References: what xref-find-references lists, from eglot's xref backend (the file
      ;; and 0-based line of each item).
      (let* ((at (probe-get 'references)) backend)
        (probe-goto (aref at 0) (aref at 1))
        (setq backend (xref-find-backend))
        (probe-put 'references
                   (mapcar (lambda (item)
                             (let ((location (xref-item-location item)))
                               (list (cons 'file (xref-location-group location))
                                     (cons 'line (1- (xref-location-line location))))))
                           (xref-backend-references
                            backend (xref-backend-identifier-at-point backend)))))

      ;; A turn run through its code action, as M-x eglot-code-actions picks it.
      (probe-wait (lambda () nil) 0.3)
      (probe-goto (probe-get 'run_at))
      (let* ((actions (eglot-code-actions (point) nil nil nil))
             (titles (mapcar (lambda (a) (plist-get a :title)) actions))
             (turn (cl-find-if (lambda (a) (string-prefix-p "HoloDeck: Run turn"
                                                            (plist-get a :title)))
                               actions)))
        (probe-put 'actions titles)
        (unless turn
          (probe-fail (format "no Run turn code action at line %d: %S" (probe-get 'run_at) titles))
          (throw 'done nil))
        (probe-put 'run_arguments (plist-get turn :arguments))
        (let ((answer (eglot-execute-command (eglot-current-server)
                                             (intern (plist-get turn :command))
                                             (plist-get turn :arguments))))
          (probe-put 'run_status (plist-get answer :status))
          (probe-put 'run_summary (plist-get answer :summary))))
      (unless (probe-wait (lambda () (probe-diagnostics)) 15)
        (probe-fail "no run diagnostics within 15 s"))
      (probe-wait (lambda () nil) 0.3)
      (probe-put 'run_diagnostics (probe-diagnostics))

      ;; The whole case, picked from the same menu as a user would: "HoloDeck: Run case".
      (probe-goto (probe-get 'run_at))
      (let ((answer (probe-pick-action (point) nil nil "HoloDeck: Run case ")))
        (probe-put 'case_offered probe-offered)
        (probe-put 'case_status (plist-get answer :status))
        (probe-put 'case_summary (plist-get answer :summary)))
      (probe-wait (lambda () nil) 0.5)
      (probe-put 'case_diagnostics (probe-diagnostics))

      ;; Every case, from the same menu: "HoloDeck: Run all test cases".
      (probe-goto (probe-get 'run_at))
      (let* ((publishes probe-publishes)
             (answer (probe-pick-action (point) nil nil "HoloDeck: Run all test cases")))
        (probe-put 'all_offered probe-offered)
        (probe-put 'all_status (plist-get answer :status))
        (probe-put 'all_summary (plist-get answer :summary))
        (unless (probe-wait (lambda () (> probe-publishes publishes)) 15)
          (probe-fail "no publishDiagnostics after Run all within 15 s")))
      (probe-wait (lambda () nil) 0.5)
      (probe-put 'all_diagnostics (probe-diagnostics)))
  (error (probe-fail (format "error: %S" err))))
(probe-finish)
