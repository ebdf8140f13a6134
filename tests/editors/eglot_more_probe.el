;;; eglot_more_probe.el --- test driver: eglot's rename, regression hover, cancel, report -*- lexical-binding: t -*-
;; Run with `emacs --batch -q -l <config> -l eglot_more_probe.el' (as eglot_probe.el).
;; $HOLODECK_EGLOT_SPEC: a JSON file {"out", "agent", "step"} and the step's keys:
;;   "rename":     "at": [line, character], "to": the new name (eglot-rename, its question
;;                 about files no buffer visits answered y, the buffers saved);
;;   "regression": "at": [line, character] (the hover's text, as ElDoc shows it);
;;   "cancel":     "at": line, "started": a file the run's grader touches when it begins,
;;                 "release": the file that lets the grader end (written after the cancel),
;;                 "timeout": seconds eglot waits for the run's answer (it gives up, the run
;;                 goes on); then M-x holodeck-cancel-run (the config's snippet);
;;   "report":     "at": line; M-x holodeck-run-report and M-x holodeck-compare-with-baseline
;;                 (the config's snippets), then Run all picked from eglot-code-actions at the
;;                 line, then both commands again: what each said, or the buffer it showed;
;;   "conversation": "at": line, "buffer": the buffer's name; M-x holodeck-conversation (the
;;                 config's snippet), Run case picked from eglot-code-actions at the line,
;;                 then M-x holodeck-conversation again: what it said, or the buffer.
;; 0-based lines and characters. Writes JSON to "out", then kills Emacs.
(load (expand-file-name "eglot_probe_common.el" (file-name-directory load-file-name)) nil t)
(defvar probe-received nil "Every message from the server: (time method id result), newest first.")

(cl-defmethod eglot-handle-notification :after
  (_server (_method (eql textDocument/publishDiagnostics)) &rest _params)
  (setq probe-publishes (1+ probe-publishes)))

;; What eglot receives, whether it has a handler or not ($/progress, holodeck/runResult, the
;; answer to a request it gave up waiting for).
(advice-add 'jsonrpc-connection-receive :before
            (lambda (_connection message)
              (push (list (float-time) (plist-get message :method) (plist-get message :id)
                          (plist-get message :result) (plist-get message :params))
                    probe-received)))

(defun probe-wait (predicate seconds)
  "Process the server's messages until PREDICATE holds or SECONDS pass."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall predicate)))

(defun probe-goto (line &optional character)
  (goto-char (point-min))
  (forward-line line)
  (when character (forward-char character)))

(defun probe-pick-action (title)
  "`M-x eglot-code-actions' at point, its menu item starting with TITLE picked."
  (cl-letf (((symbol-function 'completing-read)
             (lambda (_prompt items &rest _)
               (or (cl-find-if (lambda (offered) (string-prefix-p title offered))
                               (mapcar #'car items))
                   (error "no code action %S among %S" title (mapcar #'car items))))))
    (let ((last-nonmenu-event ?\r))
      (eglot-code-actions (point) nil nil t))))

(defun probe-finish ()
  (with-temp-file (probe-get 'out)
    (insert (json-encode probe-result)))
  (ignore-errors (eglot-shutdown (eglot-current-server)))
  (kill-emacs 0))

(defun probe-rename ()
  "eglot-rename on the name at point, as `M-x eglot-rename' does; then every buffer saved."
  (let ((at (probe-get 'at)))
    (probe-goto (aref at 0) (aref at 1))
    (probe-put 'renaming (thing-at-point 'symbol t))
    ;; eglot asks before it edits a file no buffer visits (the include): the user says y.
    (cl-letf (((symbol-function 'y-or-n-p)
               (lambda (prompt) (probe-put 'asked prompt) t)))
      (eglot-rename (probe-get 'to)))
    (probe-put 'buffers (mapcar #'buffer-name
                                (cl-remove-if-not #'buffer-modified-p
                                                  (cl-remove-if-not #'buffer-file-name
                                                                    (buffer-list)))))
    (save-some-buffers t)))

(defun probe-regression ()
  "The hover at point, as ElDoc shows it (eglot's hover text)."
  (let ((at (probe-get 'at)))
    (probe-goto (aref at 0) (aref at 1))
    (let ((hover (jsonrpc-request (eglot-current-server) :textDocument/hover
                                  (eglot--TextDocumentPositionParams))))
      (probe-put 'hover (and hover (eglot--hover-info (plist-get hover :contents)))))))

(defun probe-short-wait (execute &rest arguments)
  "EXECUTE (eglot-execute-command) with ARGUMENTS, waiting the spec's \"timeout\" seconds."
  (let ((jsonrpc-default-request-timeout (probe-get 'timeout)))
    (apply execute arguments)))

(defun probe-cancel ()
  "A run started from the code action menu outlasts eglot's wait; the user cancels it."
  (probe-put 'client_window (plist-get (eglot-client-capabilities (eglot-current-server))
                                       :window))
  (probe-goto (probe-get 'at))
  (let ((started (probe-get 'started))
        sent cancelled answered)
    (setq sent (float-time))
    ;; The short wait applies to the run's executeCommand only: the code actions are asked
    ;; for with eglot's usual wait, so a slow answer to them is not taken for the run's.
    (advice-add 'eglot-execute-command :around #'probe-short-wait)
    (unwind-protect
        (condition-case err
            (progn (probe-pick-action (probe-get (quote action)))
                   (probe-put 'waited "answered"))
          (jsonrpc-error (probe-put 'waited (format "%S" (cdr err)))))
      (advice-remove 'eglot-execute-command #'probe-short-wait))
    (probe-put 'gave_up_after (- (float-time) sent))
    (unless (probe-wait (lambda () (file-exists-p started)) 120)
      (probe-fail "the run's grader did not start within 120 s")
      (throw 'done nil))
    (setq cancelled (float-time))
    (probe-put 'cancel_message (call-interactively #'holodeck-cancel-run))
    ;; The cancel said: the grader of the turn being graded may end now (slow_sample.py).
    (write-region "" nil (probe-get 'release) nil 'quiet)
    (probe-put 'cancel_after_start (- cancelled sent))
    ;; The run's answer, which eglot no longer waits for, arrives when the run ends.
    (unless (probe-wait (lambda () (cl-find-if (lambda (m) (and (nth 2 m) (nth 3 m)
                                                               (plist-get (nth 3 m) :results)))
                                               probe-received))
                        120)
      (probe-fail "no answer to the run within 120 s of the cancel")
      (throw 'done nil))
    (setq answered (cl-find-if (lambda (m) (and (nth 2 m) (plist-get (nth 3 m) :results)))
                               probe-received))
    (probe-put 'ended_after_cancel (- (nth 0 answered) cancelled))
    (probe-put 'answer (nth 3 answered))
    (probe-put 'after (plist-get (eglot-execute-command
                                  (eglot-current-server) 'holodeck.cancelRun
                                  (vector (eglot--path-to-uri (buffer-file-name))))
                                 :status))
    (probe-put 'methods (delete-dups (delq nil (mapcar #'cadr probe-received))))))

(defun probe-show (command buffer-name)
  "M-x COMMAND: its message, or the text and mode of BUFFER-NAME, which it (re)fills."
  (when (get-buffer buffer-name) (kill-buffer buffer-name))
  (let ((said (call-interactively command))
        (shown (get-buffer buffer-name)))
    (list (cons 'message (and (stringp said) said))
          (cons 'buffer (and shown (with-current-buffer shown
                                     (list (cons 'text (buffer-string))
                                           (cons 'mode (symbol-name major-mode))
                                           (cons 'read_only (if buffer-read-only t
                                                              :json-false)))))))))

(defun probe-report ()
  "The report and comparison commands before a Run all (from the code action menu) and after."
  (probe-goto (probe-get 'at))
  (probe-put 'report_before (probe-show #'holodeck-run-report "*HoloDeck report*"))
  (probe-put 'compare_before (probe-show #'holodeck-compare-with-baseline
                                         "*HoloDeck comparison*"))
  (let ((jsonrpc-default-request-timeout 120)) ; a whole run takes longer than 10 s under load
    (probe-put 'answer (probe-pick-action "HoloDeck: Run all test cases")))
  (probe-put 'report (probe-show #'holodeck-run-report "*HoloDeck report*"))
  (probe-put 'compare (probe-show #'holodeck-compare-with-baseline "*HoloDeck comparison*")))

(defun probe-conversation ()
  "The conversation command before a Run case (from the code action menu) and after."
  (probe-goto (probe-get 'at))
  (probe-put 'conversation_before (probe-show #'holodeck-conversation (probe-get 'buffer)))
  (let ((jsonrpc-default-request-timeout 120))
    (probe-put 'answer (probe-pick-action "HoloDeck: Run case ")))
  (probe-put 'conversation (probe-show #'holodeck-conversation (probe-get 'buffer))))

(setq project-find-functions (list (lambda (dir) (cons 'transient dir))))
(setq eglot-sync-connect t)

(condition-case err
    (catch 'done
      (find-file (probe-get 'agent))
      (yaml-mode)
      (apply #'eglot (eglot--guess-contact))
      (unless (probe-wait (lambda () (> probe-publishes 0)) 30)
        (probe-fail "no publishDiagnostics within 30 s")
        (throw 'done nil))
      (probe-wait (lambda () nil) 0.3)
      (pcase (probe-get 'step)
        ("rename" (probe-rename))
        ("regression" (probe-regression))
        ("cancel" (probe-cancel))
        ("report" (probe-report))
        ("conversation" (probe-conversation))
        (step (probe-fail (format "unknown step %S" step)))))
  (error (probe-fail (format "error: %S" err))))
(probe-finish)
